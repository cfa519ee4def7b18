import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
        [],
        { HTTPS_PROXY: 'socks5://proxy:1080' },
        'HTTPS_PROXY must be an http:// or https:// proxy; got socks5:// (SOCKS is not supported).',
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
    const dir = mkdtempSync(join(tmpdir(), 'old-node-'));
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
});
