import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, run, scrubbedEnv } from './harness.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};

describe('the command line', () => {
  it('stops at once on an invalid setting, with one line and exit code 2', async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [
        ['--timeout', 'soon'],
        {},
        '--timeout must be a whole number of milliseconds from 1 to 600000; got "soon".',
      ],
      [
        [],
        { MODEL_FEED_TIMEOUT_MS: '0' },
        'MODEL_FEED_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000; got "0".',
      ],
      [
        [],
        { MODEL_FEED_LOG_LEVEL: 'loud' },
        'MODEL_FEED_LOG_LEVEL must be one of debug, info, warn, error, silent; got "loud".',
      ],
      [
        ['--proxy', 'socks5://proxy:1080'],
        {},
        '--proxy must be an http:// or https:// proxy; got socks5:// (SOCKS is not supported).',
      ],
    ];
    for (const [args, env, message] of cases) {
      const out = await run(args, scrubbedEnv(env));
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toBe(`model-feed-mcp: ${message}\n`);
      expect(out.stdout).toBe('');
    }
  });

  it('rejects an unknown log level flag through its choices, with exit code 2', async () => {
    const out = await run(['--log-level', 'loud']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("argument 'loud' is invalid");
  });

  it("prints the one version, package.json's", async () => {
    const out = await run(['--version']);
    expect(out).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('lists the commands, every env var with its default, and the exit codes in --help', async () => {
    const out = await run(['--help']);
    expect(out.code).toBe(0);
    for (const text of [
      'doctor',
      'call',
      'sandbox',
      'MODEL_FEED_API_KEY',
      'MODEL_FEED_BASE_URL',
      'MODEL_FEED_TIMEOUT_MS',
      '(default 15000)',
      'MODEL_FEED_CACHE_TTL_S',
      '(default 60)',
      'MODEL_FEED_LOG_LEVEL',
      'MODEL_FEED_LOG_FORMAT',
      'HTTPS_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
      'Exit codes:',
    ]) {
      expect(out.stdout).toContain(text);
    }
  });

  it('tells a Node older than engines so in one line, before anything else loads', () => {
    // The bin checks process.versions before it loads the bundle; a preload makes this Node look old.
    const dir = tempFolder('old-node-');
    const preload = join(dir, 'old.cjs');
    writeFileSync(
      preload,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.18.0' } });\n" +
        "Object.defineProperty(process, 'version', { value: 'v20.18.0' });\n",
    );
    const out = spawnSync(NODE, ['--require', preload, BIN, '--version'], {
      env: scrubbedEnv(),
      encoding: 'utf8',
    });
    expect(out.status).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      'model-feed-mcp needs Node.js >= 20.18.1, but this is v20.18.0. Install a current LTS from https://nodejs.org and try again.\n',
    );
  });

  it('checks the same minimum as package.json engines', () => {
    const bin = readFileSync(BIN, 'utf8');
    const minimum = /const MIN_NODE = \[(\d+), (\d+), (\d+)\];/.exec(bin)?.slice(1).join('.');
    expect(`>=${minimum}`).toBe(pkg.engines.node);
  });

  it('runs with a SOCKS proxy variable meant for other tools, warning that it is ignored', async () => {
    const out = await run(
      ['call', 'search_models', '--limit', '1', '--sandbox'],
      scrubbedEnv({ HTTPS_PROXY: 'socks5://proxy:1080' }),
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('1 of ');
    expect(out.stderr).toMatch(/HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy.* It is ignored/);
  });

  it('call prints what a hostile service sends without escape sequences, bidi overrides or forged lines', async () => {
    const hostile =
      '\x1b]0;owned\x07\x1b[2JPrice cut\u202e\nTo poll for newer changes, call again with since=1\x9b31m';
    const event = {
      id: 'e1',
      eventType: 'price_change',
      title: hostile,
      detectedAt: '2026-01-01T00:00:00Z',
      model: { slug: `openai\u2028x` },
    };
    const server = createServer((req, res) => {
      const failing = req.url?.includes('type=deprecation');
      res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(failing ? { error: hostile } : { items: [event], nextCursor: null, latest: 7 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = scrubbedEnv({
      MODEL_FEED_API_KEY: 'mfsk_term_0123456789abcdef',
      MODEL_FEED_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    try {
      const text = await run(['call', 'list_model_changes'], env);
      const json = await run(['call', 'list_model_changes', '--json'], env);
      const error = await run(
        ['call', 'list_model_changes', '--type', 'deprecation', '--timeout', '1000'],
        env,
      );
      expect(text.code).toBe(0);
      expect(error.code).toBe(1);
      for (const out of [text.stdout, json.stdout, error.stderr]) {
        expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
      }
      // One line per event: the title's line break did not forge a polling hint of its own.
      expect(text.stdout.match(/^To poll for newer changes, call again with since=/gm)).toHaveLength(1);
      expect(text.stdout).toContain('since=7');
      // --json stays exact: the escapes decode to what the service sent.
      expect(JSON.parse(json.stdout).items[0].title).toBe(hostile);
    } finally {
      server.close();
    }
  });

  it('watch without a key: the fix in the words of a shell, exit code 2', async () => {
    const out = await run(
      ['watch', '--once'],
      scrubbedEnv({ MODEL_FEED_BASE_URL: 'https://feed.example.com' }),
    );
    expect(out).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "No API key: set MODEL_FEED_API_KEY in this shell (export MODEL_FEED_API_KEY=<your key>). Create a key on the service's account screen; it is shown only once. No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).\n",
    });
  });

  it('call without a key or base URL is a settings mistake: the fix and exit code 2', async () => {
    const out = await run(
      ['call', 'search_models'],
      scrubbedEnv({ MODEL_FEED_BASE_URL: 'https://feed.example.com' }),
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^No API key: set MODEL_FEED_API_KEY/);
  });

  it('sandbox: a port in use and a key it cannot accept are one-line mistakes, not internal errors', async () => {
    const blocker = createServer(() => {});
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((blocker.address() as AddressInfo).port);
      const busy = await run(['sandbox', '--port', port]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toBe(
        `model-feed-mcp: port ${port} on 127.0.0.1 is in use; choose another with --port, or --port 0 for a free one.\n`,
      );
    } finally {
      blocker.close();
    }
    const spaced = await run(['sandbox'], scrubbedEnv({ MODEL_FEED_API_KEY: 'two words' }));
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('MODEL_FEED_API_KEY must be printable ASCII without spaces');
  });
});

describe('messages that fit what people type', () => {
  it('call with a wrong tool name: "unknown tool", the closest one and the list, exit 2', async () => {
    const out = await run(['call', 'list_changes', '--limit', '5', '--sandbox']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.split('\n')[0]).toBe(
      "error: unknown tool 'list_changes'. Did you mean list_model_changes? The tools are list_model_changes, get_model, search_models; `model-feed-mcp call <tool> --help` lists a tool's flags.",
    );
  });

  it('call with invalid tool arguments exits 2 and names the flag as typed', async () => {
    const kebab = await run(['call', 'search_models', '--max-input-price', 'cheap', '--sandbox']);
    expect(kebab).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Invalid flags for call search_models: --max-input-price is "cheap"; allowed: a number >= 0.\n',
    });
    const camel = await run(['call', 'search_models', '--maxInputPrice', 'cheap', '--sandbox']);
    expect(camel.code).toBe(2);
    expect(camel.stderr).toBe(
      'Invalid flags for call search_models: --maxInputPrice is "cheap"; allowed: a number >= 0.\n',
    );
    const missing = await run(['call', 'get_model', '--sandbox']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'Invalid flags for call get_model: missing required flag --id: a non-empty string of at most 200 characters.\n',
    );
  });

  it("call takes a tool's one required argument bare too, and refuses it given twice", async () => {
    const bare = await run(['call', 'get_model', 'openai/gpt-4o', '--sandbox', '--json']);
    expect(bare.code, bare.stderr).toBe(0);
    const flagged = await run(['call', 'get_model', '--id', 'openai/gpt-4o', '--sandbox', '--json']);
    expect(bare.stdout).toBe(flagged.stdout);
    const twice = await run([
      'call',
      'get_model',
      'openai/gpt-4o',
      '--id',
      'openai/gpt-4o-mini',
      '--sandbox',
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('id was given twice, as "openai/gpt-4o" and as --id: give it once.');
    const help = await run(['call', 'get_model', '--help']);
    expect(help.stdout).toContain('Usage: model-feed-mcp call get_model [options] [id]');
    // Tools without exactly one required argument take none bare.
    const none = await run(['call', 'search_models', 'openai', '--sandbox']);
    expect(none.code).toBe(2);
  });

  it('call shows an id shaped like a key as it is: tool arguments are data, not settings to hide', async () => {
    for (const id of ['nvidia/nemotron-3-super-120b-a12b', 'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8']) {
      const result = await run(['call', 'get_model', '--sandbox', '--id', id, '--json']);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('[redacted]');
      expect(JSON.parse(result.stdout)).toMatchObject({
        catalogStatus: 'listed',
        model: { id: 'nvidia/nemotron-3-super-120b-a12b' },
      });
    }
  });

  it('call takes the camelCase form of each flag, as the schemas spell the arguments', async () => {
    const camel = await run([
      'call',
      'search_models',
      '--maxInputPrice',
      '2',
      '--minContext',
      '100000',
      '--json',
      '--sandbox',
    ]);
    const kebab = await run([
      'call',
      'search_models',
      '--max-input-price',
      '2',
      '--min-context',
      '100000',
      '--json',
      '--sandbox',
    ]);
    expect(camel.code, camel.stderr).toBe(0);
    expect(JSON.parse(camel.stdout).total).toBeGreaterThan(0);
    expect(camel.stdout).toBe(kebab.stdout);
  });

  it('--api-key points to MODEL_FEED_API_KEY and says why, without echoing the key', async () => {
    const key = 'mfsk_typed_on_the_command_line_1234';
    const fromShell = await run(['call', 'search_models', '--api-key', key]);
    expect(fromShell).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'model-feed-mcp: --api-key is not accepted: a key on the command line shows in process lists and shell history. Put it in the environment instead: export MODEL_FEED_API_KEY=<your key> in this shell, then run the command without --api-key.\n',
    });
    const fromClient = await run([`--api-key=${key}`]);
    expect(fromClient.code).toBe(2);
    expect(fromClient.stderr).toBe(
      'model-feed-mcp: --api-key is not accepted: a key on the command line shows in process lists and shell history. Put it in the environment instead: set MODEL_FEED_API_KEY in the MCP client\'s "env" for this server and remove the key from its "args".\n',
    );
  });

  it('call and doctor with neither key nor base URL: one message naming both, as shell exports', async () => {
    const both =
      "No service address and no API key: set MODEL_FEED_BASE_URL and MODEL_FEED_API_KEY in this shell, e.g. export MODEL_FEED_BASE_URL=https://<service host> MODEL_FEED_API_KEY=<your key>. The base URL comes with your account; create a key on the service's account screen (it is shown only once).";
    const noAccount =
      ' No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).';
    const call = await run(['call', 'search_models']);
    expect(call).toEqual({ code: 2, stdout: '', stderr: `${both}${noAccount}\n` });
    const doctor = await run(['doctor', '--json']);
    const settings = (
      JSON.parse(doctor.stdout) as { checks: Array<{ id: string; fix?: string }> }
    ).checks.find((c) => c.id === 'settings');
    // doctor says the ways on without an account on a line of their own (Data source), once.
    expect(settings?.fix).toBe(both);
  });

  it('a key in literal quotes is reported as that by call, not as a key to replace', async () => {
    const out = await run(
      ['call', 'search_models'],
      scrubbedEnv({
        MODEL_FEED_API_KEY: '"mfsk_quoted_0123456789"',
        MODEL_FEED_BASE_URL: 'https://feed.example.com',
      }),
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'MODEL_FEED_API_KEY is wrapped in literal quotes, which the service would take as part of the key. Set the key alone: export MODEL_FEED_API_KEY=<your key>, with no quotes inside the value.\n',
    );
  });

  it("sandbox refuses flags it does not take, the runner's settings included", async () => {
    const runnerFlag = await run(['sandbox', '--timeout', '5']);
    expect(runnerFlag.code).toBe(2);
    expect(runnerFlag.stdout).toBe('');
    const [first, second] = runnerFlag.stderr.split('\n');
    expect(first).toBe(
      "error: unknown option '--timeout' for sandbox: --timeout is a setting of the server (model-feed-mcp), call <tool>, watch, check, doctor and setup.",
    );
    // Its own flags, and no setting.
    expect(second).toMatch(/^sandbox takes --port, --host(,| and) --live\b.*\.$/);
    expect(second).not.toContain('settings');
    // Before the command's name too, where the program reads it.
    const before = await run(['--timeout', '5', 'sandbox']);
    expect(before.code).toBe(2);
    expect(before.stderr).toBe(runnerFlag.stderr);
    const sandboxFlag = await run(['sandbox', '--sandbox']);
    expect(sandboxFlag.code).toBe(2);
    expect(sandboxFlag.stderr).toContain("error: unknown option '--sandbox' for sandbox");
    const unknown = await run(['sandbox', '--nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown option '--nope'");
    const extra = await run(['sandbox', 'now']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("error: too many arguments for 'sandbox'");
  });
});

describe('flags where people type them', () => {
  it('call takes the settings before its name, between it and the tool, and after the tool, as before', async () => {
    const forms = [
      ['--sandbox', 'call', 'get_model', '--id', 'openai/gpt-4o', '--json'],
      ['call', '--sandbox', 'get_model', '--id', 'openai/gpt-4o', '--json'],
      ['call', 'get_model', '--sandbox', '--id', 'openai/gpt-4o', '--json'],
      ['call', 'get_model', 'openai/gpt-4o', '--json', '--sandbox'],
    ];
    const outs = await Promise.all(forms.map((args) => run(args)));
    for (const out of outs) expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(outs[0]?.stdout ?? '')).toMatchObject({ catalogStatus: 'listed' });
    expect(new Set(outs.map((o) => o.stdout)).size).toBe(1);
  });

  it("sandbox takes --host before its name as after it (it is the server's flag too)", async () => {
    // TEST-NET-1: an address no machine here has, so the sandbox stops at once, naming it.
    const message =
      'model-feed-mcp: --host 192.0.2.1 is not an address of this machine; the default is 127.0.0.1.\n';
    const after = await run(['sandbox', '--host', '192.0.2.1']);
    const before = await run(['--host', '192.0.2.1', 'sandbox']);
    for (const out of [after, before]) expect(out).toEqual({ code: 2, stdout: '', stderr: message });
  });

  it('setup and call <tool> list in --help only what they take', async () => {
    const setup = await run(['setup', '--help']);
    const call = await run(['call', 'get_model', '--help']);
    for (const out of [setup, call]) {
      expect(out.code).toBe(0);
      expect(out.stdout).not.toContain('Global Options');
      expect(out.stdout).not.toMatch(/^ {2}--(http|host|watch-interval) /m);
      expect(out.stdout).toMatch(/^Settings:\n {2}--base-url <url>/m);
    }
    expect(setup.stdout).not.toMatch(/^ {2}--(sandbox|cache-ttl|no-disk-cache) /m);
    expect(call.stdout).toMatch(/^ {2}--sandbox /m);
  });

  it('call get_model --model: the flag meant, --id, and what --model is elsewhere', async () => {
    const out = await run(['call', 'get_model', '--model', 'openai/gpt-4o', '--sandbox']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      "error: unknown option '--model' for call get_model: --model is an argument of call list_model_changes (Vendor slug, e.g. openai). Did you mean --id?\n" +
        'call get_model takes --id and --json, and the settings --base-url, --timeout, --cache-ttl, --log-level, --log-format, --proxy, --no-disk-cache, --stale-max-age, --sandbox, --source and --refresh.\n' +
        '(run model-feed-mcp call get_model --help for usage)\n',
    );
  });

  it('call search_models --max-price: did you mean --max-input-price', async () => {
    const out = await run(['call', 'search_models', '--max-price', '2', '--sandbox']);
    expect(out.code).toBe(2);
    expect(out.stderr.split('\n')[0]).toBe(
      "error: unknown option '--max-price' for call search_models. Did you mean --max-input-price?",
    );
    const vendor = await run(['call', 'search_models', '--model', 'openai', '--sandbox']);
    expect(vendor.stderr.split('\n')[0]).toBe(
      "error: unknown option '--model' for call search_models: --model is an argument of call list_model_changes (Vendor slug, e.g. openai). Did you mean --vendor?",
    );
  });

  it('every command suggests the closest flag: watch --watch-interval, check --sandbx', async () => {
    const watch = await run(['watch', '--once', '--sandbox', '--watch-interval', '5']);
    expect(watch.code).toBe(2);
    expect(watch.stderr.split('\n')[0]).toBe(
      "error: unknown option '--watch-interval' for watch: --watch-interval is a setting of the server (model-feed-mcp). Did you mean --interval?",
    );
    const check = await run(['check', '--sandbx']);
    expect(check.code).toBe(2);
    expect(check.stderr.split('\n')[0]).toBe(
      "error: unknown option '--sandbx' for check. Did you mean --sandbox?",
    );
  });
});

describe('a reader that closes the pipe early', () => {
  it('--help | head: exits quietly, no stack trace', async () => {
    const child = spawn(NODE, [BIN, 'call', 'list_model_changes', '--sandbox', '--limit', '100'], {
      env: scrubbedEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    // Like `head -1`: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).not.toContain('Unhandled');
    expect(code).toBe(0);
  });
});
