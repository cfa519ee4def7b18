/**
 * Values from outside (settings, flags, words where a command belongs), hostile ones, through the
 * built CLI with a scrubbed environment and a fresh HOME, against a loopback sandbox. One test per
 * class, each run over every setting and command it names:
 * - a key put in the wrong place, in four shapes, never shows, whole or any 12 characters of it;
 * - escape sequences, CR+LF, bidi marks and U+2028 never reach the output raw, nor forge a line;
 * - a 100 KB value gives a message of a line, not 100 KB;
 * - settings of 120 KB each do not hold up the start (the key-shape scan is linear).
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import {
  INITIALIZE,
  INITIALIZED,
  type Output,
  request,
  run,
  scrubbedEnv,
  spawnRaw,
  toolCall,
} from './harness.js';

/** The review's key shapes: letters only, letters and digits, with `"` and `\`, our prefix. */
const SHAPES = {
  L: 'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ',
  D: 'Q7mZp2LxV9cT4nRw8KbY3hJd6FsA1gUe5oNi0qWt',
  Q: 'k9Xq2"Tz4vL\\m8Rw3Ny"7Hs5Dp\\Qe6Gj1Fb"0Zc',
  M: 'mfsk_live_7Hq2ZtLw9XcV4bNm8KpR3sJd6FgY',
} as const;
const SHAPE_NAMES = Object.keys(SHAPES) as (keyof typeof SHAPES)[];

/** The key the sandbox accepts: configured right, beside the one put in the wrong place. */
const SANDBOX_KEY = 'probe-key-123456';

let sandbox: Sandbox;
let tree: string;
beforeAll(async () => {
  sandbox = await startSandbox({ key: SANDBOX_KEY, tier: 'pro' });
  tree = tempFolder('mf-outside-tree-');
  writeFileSync(join(tree, 'app.py'), 'model = "openai/gpt-4o"\n');
});
afterAll(async () => {
  await sandbox.close();
});

type CommandName = 'call' | 'doctor' | 'doctor --json' | 'watch --once' | 'check' | 'stdio server';
const COMMANDS: CommandName[] = ['call', 'doctor', 'doctor --json', 'watch --once', 'check', 'stdio server'];

/** Everything one command printed, stdout and stderr, with `args` after its own. */
async function outputOf(command: CommandName, env: Record<string, string>, args: string[]): Promise<string> {
  if (command === 'stdio server') return serverOutput(env, args);
  const own: Record<Exclude<CommandName, 'stdio server'>, () => string[]> = {
    call: () => ['call', 'search_models', '--limit', '1'],
    doctor: () => ['doctor'],
    'doctor --json': () => ['doctor', '--json'],
    'watch --once': () => [
      'watch',
      '--once',
      '--since',
      '0',
      '--state',
      join(tempFolder('mf-state-'), 's.json'),
    ],
    check: () => ['check', tree],
  };
  return text(await run([...own[command](), ...args], env, { timeoutMs: 30_000 }));
}

/** One stdio session: initialize, a tool call, tools/list; or its exit, when a setting stops it. */
async function serverOutput(env: Record<string, string>, args: string[]): Promise<string> {
  const raw = spawnRaw(env, args);
  raw.send(INITIALIZE);
  raw.send(INITIALIZED);
  raw.send(toolCall(1, 'search_models', { limit: 1 }));
  raw.send(request(2, 'tools/list'));
  await Promise.race([raw.answer(2, 20_000).then(() => raw.answer(1, 20_000)), raw.exited]);
  raw.child.stdin.end();
  await raw.exited;
  return `${raw.stdout()}\n${raw.stderr()}`;
}

const text = (output: Output): string => `${output.stdout}\n${output.stderr}`;

/** A scrubbed environment with a fresh HOME, pointed at the sandbox, plus `vars`. */
function envWith(vars: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({
    HOME: tempFolder('mf-home-'),
    MODEL_FEED_BASE_URL: sandbox.url,
    MODEL_FEED_API_KEY: SANDBOX_KEY,
    ...vars,
  });
}

/** The key, or any 12 characters of it, in any case, as printed or as JSON escapes it. */
function leakOf(output: string, key: string): string | undefined {
  const forms = [output, output.replaceAll('\\"', '"').replaceAll('\\\\', '\\')].map((t) => t.toLowerCase());
  for (let i = 0; i + 12 <= key.length; i++) {
    const slice = key.slice(i, i + 12).toLowerCase();
    if (forms.some((form) => form.includes(slice))) return slice;
  }
  return undefined;
}

/**
 * A proxy is used, and named, only for a service that is not on loopback: a host that does not
 * resolve, reached through the proxy, which does not resolve either (no network is needed).
 */
function viaProxy(env: Record<string, string>): { env: Record<string, string>; args: string[] } {
  return { env: { MODEL_FEED_BASE_URL: 'https://feed.example.test', ...env }, args: ['--timeout', '3000'] };
}

/** Where a setting takes a value: as an environment variable, or as a flag every command is given. */
type Placement = (value: string) => { env?: Record<string, string>; args?: string[] };

const SETTINGS: Record<string, Placement> = {
  MODEL_FEED_BASE_URL: (v) => ({ env: { MODEL_FEED_BASE_URL: v } }),
  'MODEL_FEED_BASE_URL path': (v) => ({ env: { MODEL_FEED_BASE_URL: `${sandbox.url}/${v}` } }),
  'key and base URL swapped': (v) => ({ env: { MODEL_FEED_BASE_URL: v, MODEL_FEED_API_KEY: sandbox.url } }),
  MODEL_FEED_TIMEOUT_MS: (v) => ({ env: { MODEL_FEED_TIMEOUT_MS: v } }),
  MODEL_FEED_CACHE_TTL_S: (v) => ({ env: { MODEL_FEED_CACHE_TTL_S: v } }),
  MODEL_FEED_LOG_LEVEL: (v) => ({ env: { MODEL_FEED_LOG_LEVEL: v } }),
  MODEL_FEED_LOG_FORMAT: (v) => ({ env: { MODEL_FEED_LOG_FORMAT: v } }),
  MODEL_FEED_DISK_CACHE: (v) => ({ env: { MODEL_FEED_DISK_CACHE: v } }),
  MODEL_FEED_STALE_MAX_AGE_S: (v) => ({ env: { MODEL_FEED_STALE_MAX_AGE_S: v } }),
  MODEL_FEED_WATCH_INTERVAL_S: (v) => ({ env: { MODEL_FEED_WATCH_INTERVAL_S: v } }),
  HTTPS_PROXY: (v) => viaProxy({ HTTPS_PROXY: v }),
  https_proxy: (v) => viaProxy({ https_proxy: v }),
  HTTP_PROXY: (v) => viaProxy({ HTTP_PROXY: v }),
  http_proxy: (v) => viaProxy({ http_proxy: v }),
  NO_PROXY: (v) => viaProxy({ HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: v }),
  NODE_EXTRA_CA_CERTS: (v) => ({ env: { NODE_EXTRA_CA_CERTS: v } }),
  '--base-url': (v) => ({ args: ['--base-url', v] }),
  '--timeout': (v) => ({ args: ['--timeout', v] }),
  '--cache-ttl': (v) => ({ args: ['--cache-ttl', v] }),
  '--log-level': (v) => ({ args: ['--log-level', v] }),
  '--log-format': (v) => ({ args: ['--log-format', v] }),
  '--stale-max-age': (v) => ({ args: ['--stale-max-age', v] }),
  '--watch-interval': (v) => ({ args: ['--watch-interval', v] }),
  '--proxy': (v) => ({ ...viaProxy({}), args: ['--proxy', v, '--timeout', '3000'] }),
};

/** A command's own flags and words: each given to its one command. */
const OWN_VALUES: Record<string, (value: string) => string[]> = {
  'watch --since': (v) => ['watch', '--once', '--since', v],
  'watch --interval': (v) => ['watch', '--once', '--interval', v],
  'watch --max-attempts': (v) => ['watch', '--once', '--max-attempts', v],
  'watch --model': (v) => ['watch', '--once', '--model', v],
  'watch --atom-url': (v) => ['watch', '--once', '--atom', 'feed.xml', '--atom-url', v],
  'watch --type': (v) => ['watch', '--once', '--type', v],
  'watch --format': (v) => ['watch', '--once', '--format', v],
  'watch --webhook-format': (v) => ['watch', '--once', '--webhook-format', v],
  'check --format': (v) => ['check', '--format', v],
  'check --fail-on': (v) => ['check', '--fail-on', v],
  'check --since': (v) => ['check', '--since', v],
  'check --max-file-size': (v) => ['check', '--max-file-size', v],
  'root --host without --http': (v) => ['--host', v],
  '--http': (v) => ['--http', v],
  '--http 0 --host': (v) => ['--http', '0', '--host', v],
  'sandbox --port': (v) => ['sandbox', '--port', v],
  'sandbox --live': (v) => ['sandbox', '--live', v],
  'sandbox --tier': (v) => ['sandbox', '--tier', v],
  'sandbox --host': (v) => ['sandbox', '--host', v],
  'call get_model <id> --id x': (v) => ['call', 'get_model', v, '--id', 'x'],
  'a stray word': (v) => [v],
  'help <x>': (v) => ['help', v],
  'call <x>': (v) => ['call', v],
  'setup --client <x>': (v) => ['setup', '--client', v, '--print'],
};

/** Runs `OWN_VALUES` in the folder that has the tree, so `check` scans something and `watch` writes there. */
async function ownOutput(args: string[], env: Record<string, string>): Promise<string> {
  const cwd = tempFolder('mf-cwd-');
  writeFileSync(join(cwd, 'app.py'), 'model = "openai/gpt-4o"\n');
  return text(await run(args, env, { timeoutMs: 30_000, cwd }));
}

describe('a key in the wrong place is never shown, whole or in part', () => {
  // Every command for every setting, the shape turning with the command, so each setting meets all
  // four; and the stdio server, whose results reach the client and the model, with all four.
  for (const [i, [setting, place]] of Object.entries(SETTINGS).entries()) {
    it(`${setting}: every command`, async () => {
      const runs: [CommandName, keyof typeof SHAPES][] = [
        ...COMMANDS.filter((c) => c !== 'stdio server').map(
          (command, j) =>
            [command, SHAPE_NAMES[(i + j) % SHAPE_NAMES.length]] as [CommandName, keyof typeof SHAPES],
        ),
        ...SHAPE_NAMES.map((shape) => ['stdio server', shape] as [CommandName, keyof typeof SHAPES]),
      ];
      await Promise.all(
        runs.map(async ([command, shape]) => {
          const { env = {}, args = [] } = place(SHAPES[shape]);
          const output = await outputOf(command, envWith(env), args);
          // Node's own start-up warning names NODE_EXTRA_CA_CERTS's file before our code runs.
          const ours = setting === 'NODE_EXTRA_CA_CERTS' ? withoutNodeWarning(output) : output;
          expect(leakOf(ours, SHAPES[shape]), `${command}, key ${shape}: ${ours}`).toBeUndefined();
        }),
      );
    });
  }

  for (const [name, argsFor] of Object.entries(OWN_VALUES)) {
    it(`${name}: every shape`, async () => {
      await Promise.all(
        SHAPE_NAMES.map(async (shape) => {
          const output = await ownOutput(argsFor(SHAPES[shape]), envWith());
          expect(leakOf(output, SHAPES[shape]), `key ${shape}: ${output}`).toBeUndefined();
        }),
      );
    });
  }
});

/** Node's own warning about an unreadable NODE_EXTRA_CA_CERTS, printed before any of our code. */
function withoutNodeWarning(output: string): string {
  return output.replace(/^Warning: Ignoring extra certs from [\s\S]*?load failed: [^\n]*\n/m, '');
}

/**
 * An escape that clears the screen, a live OSC 8 link, BEL, CR+LF and a forged line, a C1 CSI,
 * bidi overrides and U+2028.
 */
const HOSTILE =
  'x\x1b[2J\x1b]8;;http://evil.example/\x07CLICK\x1b]8;;\x07\r\nFORGED LINE\u202eevil\u2028\x9b31mred';

/** What may not reach a terminal raw: C0 controls but newline, DEL, C1, bidi controls, U+2028/9. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

function expectHarmless(output: string, where: string): void {
  expect(
    RAW_CONTROL.exec(output)?.[0],
    `${where}: a raw control character in ${JSON.stringify(output)}`,
  ).toBeUndefined();
  expect(output, `${where}: a forged line`).not.toMatch(/^FORGED/m);
}

describe('escapes, line breaks and bidi marks in a value act on no terminal', () => {
  it('every setting, through call and doctor', async () => {
    await Promise.all(
      Object.entries(SETTINGS).flatMap(([setting, place]) =>
        (['call', 'doctor'] as const).map(async (command) => {
          const { env = {}, args = [] } = place(HOSTILE);
          const output = await outputOf(command, envWith(env), args);
          expectHarmless(
            setting === 'NODE_EXTRA_CA_CERTS' ? withoutNodeWarning(output) : output,
            `${command} ${setting}`,
          );
        }),
      ),
    );
  });

  it("every command's own flags and words, commander's choices among them", async () => {
    await Promise.all(
      Object.entries(OWN_VALUES).map(async ([name, argsFor]) => {
        expectHarmless(await ownOutput(argsFor(HOSTILE), envWith()), name);
      }),
    );
  });

  it("check's --write-baseline names its file on one line", async () => {
    const folder = tempFolder('mf-baseline-');
    const output = await run(
      ['check', tree, '--sandbox', '--write-baseline', join(folder, `b${HOSTILE.replace('\x9b', '')}.json`)],
      envWith(),
      { timeoutMs: 30_000 },
    );
    expectHarmless(text(output), 'check --write-baseline');
  });
});

describe('a 100 KB value gives a message of a line', () => {
  const VALUES = { 'one token': 'a'.repeat(102_400), words: 'ab '.repeat(34_000) };

  for (const [shape, value] of Object.entries(VALUES)) {
    it(`${shape}: every setting and every command's own flags`, async () => {
      const outputs = await Promise.all([
        ...Object.entries(SETTINGS).map(async ([setting, place]) => {
          const { env = {}, args = [] } = place(value);
          return [setting, await outputOf('call', envWith(env), args)] as const;
        }),
        ...Object.entries(OWN_VALUES).map(
          async ([name, argsFor]) => [name, await ownOutput(argsFor(value), envWith())] as const,
        ),
      ]);
      for (const [where, output] of outputs) {
        const ours = where === 'NODE_EXTRA_CA_CERTS' ? withoutNodeWarning(output) : output;
        const longest = ours.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
        expect(
          longest.length,
          `${where}: a line of ${longest.length}: ${longest.slice(0, 300)}`,
        ).toBeLessThan(2_000);
      }
    });
  }
});

describe('long settings do not hold up the start', () => {
  it('six proxy variables and a base URL of 120 KB each: call answers within a bounded wait', async () => {
    // 120 KB is about the most one variable may hold (Linux's MAX_ARG_STRLEN). A scan quadratic in
    // a value's length took 4.7 s for one of 100 KB, so these would take about 40 s.
    const long = 'A'.repeat(120_000);
    const env = envWith({
      NO_PROXY: long,
      no_proxy: long,
      HTTPS_PROXY: long,
      https_proxy: long,
      HTTP_PROXY: long,
      http_proxy: long,
      // Trailing slashes trimmed by a pattern were quadratic too: 10 s for 100,000.
      MODEL_FEED_BASE_URL: `https://feed.example.test/${'/'.repeat(120_000)}`,
    });
    const output = await run(['call', 'search_models', '--limit', '1', '--sandbox'], env, {
      timeoutMs: 20_000,
    });
    expect(output.code, output.stderr).toBe(0);
  });
});
