/**
 * `setup` never harms a client's file: the built CLI on temp HOME folders, against a sandbox on
 * loopback. Any size of valid file is configured; a read-only file is refused and keeps its mode;
 * a temp file left by a killed run (it may hold the key) is removed by the next run.
 */

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { type Output, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

function put(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', MODEL_FEED_BASE_URL: sandbox.url, ...extra });
}

function setup(args: string[], env: Record<string, string>, input = '', timeoutMs?: number): Promise<Output> {
  return run(['setup', ...args], env, { input, timeoutMs });
}

/** A valid ~/.claude.json as a heavy user has it: one line per project, indented two spaces. */
function claudeJson(projects: number): string {
  const lines = Array.from({ length: projects }, (_, i) => `    "/p${i}": 1`);
  return `{\n  "projects": {\n${lines.join(',\n')}\n  }\n}\n`;
}

describe('any size of valid client file', () => {
  it('a ~/.claude.json of 130,000 lines is configured, its projects kept', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.claude.json');
    const original = claudeJson(130_000);
    put(path, original, 0o600);
    const result = await setup(['--client', 'claude-code'], envFor(home), `${sandbox.key}\n`, 60_000);
    expect(result.stderr).not.toContain('Internal error');
    expect(result.code, result.stderr).toBe(0);
    const written = JSON.parse(readFileSync(path, 'utf8')) as {
      projects: Record<string, number>;
      mcpServers: Record<string, { env: Record<string, string> }>;
    };
    expect(Object.keys(written.projects)).toHaveLength(130_000);
    expect(written.mcpServers['model-feed']!.env.MODEL_FEED_API_KEY).toBe(sandbox.key);
    // Only the entry was added: the original bytes are all still there, in order.
    const removed = await setup(['--client', 'claude-code', '--remove'], envFor(home), '', 60_000);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(path, 'utf8').replace(/,\n {2}"mcpServers": \{\}/, '')).toBe(original);
  }, 120_000);

  it('a 40 MB ~/.claude.json is configured and shown with --print', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.claude.json');
    const history = 'x'.repeat(100);
    const lines = Array.from({ length: 360_000 }, (_, i) => `    "/project/${i}": "${history}"`);
    put(path, `{\n  "projects": {\n${lines.join(',\n')}\n  }\n}\n`, 0o600);
    expect(statSync(path).size).toBeGreaterThan(40_000_000);
    const printed = await setup(
      ['--client', 'claude-code', '--print'],
      envFor(home),
      `${sandbox.key}\n`,
      120_000,
    );
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('+  "mcpServers": {');
    const result = await setup(['--client', 'claude-code'], envFor(home), `${sandbox.key}\n`, 120_000);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain(sandbox.key);
  }, 300_000);
});

describe('a read-only client file', () => {
  const GEMINI = '{\n  "theme": "dark"\n}\n';

  it('is refused, named with the fix, and keeps its bytes and its mode; the other clients are still configured', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.gemini/settings.json');
    put(path, GEMINI, 0o444);
    const result = await setup(['--client', 'gemini,cursor'], envFor(home), `${sandbox.key}\n`);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `Gemini CLI: ${path} is read-only (mode 0444); left it alone. To let setup change it, make it writable (chmod u+w ${path}), then run setup again.`,
    );
    expect(readFileSync(path, 'utf8')).toBe(GEMINI);
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(readdirSync(dirname(path))).toEqual(['settings.json']);
    expect(result.stdout).toContain('Cursor: added model-feed to');
  });

  it('--remove refuses it too, and deletes none of its backups', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.gemini/settings.json');
    put(path, GEMINI, 0o600);
    expect((await setup(['--client', 'gemini'], envFor(home), `${sandbox.key}\n`)).code).toBe(0);
    const withEntry = readFileSync(path, 'utf8');
    put(`${path}.20260101-000000.bak`, withEntry, 0o600);
    chmodSync(path, 0o400);
    const removed = await setup(['--client', 'gemini', '--remove'], envFor(home));
    expect(removed.code, removed.stderr).toBe(1);
    expect(removed.stderr).toContain(`Gemini CLI: ${path} is read-only (mode 0400); left it alone.`);
    expect(readFileSync(path, 'utf8')).toBe(withEntry);
    expect(statSync(path).mode & 0o777).toBe(0o400);
    expect(readdirSync(dirname(path))).toContain('settings.json.20260101-000000.bak');
  });
});

describe('what setup shows', () => {
  /** A key-shaped value put where a key does not belong. */
  const D = 'Q7mZp2LxV9cT4nRw8KbY3hJd6FsA1gUe5oNi0qWt';
  const M = 'mfsk_live_7Hq2ZtLw9XcV4bNm8KpR3sJd6FgY';

  /** Whether `text` holds any 12 characters in a row of `secret`, in any case. */
  function holdsPartOf(text: string, secret: string): boolean {
    const lower = text.toLowerCase();
    for (let i = 0; i + 12 <= secret.length; i++) {
      if (lower.includes(secret.slice(i, i + 12).toLowerCase())) return true;
    }
    return false;
  }

  it.each([
    ['a base-URL path that does not answer', () => ({ MODEL_FEED_BASE_URL: `http://127.0.0.1:9/${D}` }), D],
    ['a base-URL path the service answers 404 to', () => ({ MODEL_FEED_BASE_URL: `${sandbox.url}/${D}` }), D],
    [
      'a proxy host',
      () => ({ MODEL_FEED_BASE_URL: 'https://feed.example.com', HTTPS_PROXY: `http://${M}:8080` }),
      M,
    ],
  ])('a key in %s is hidden, as call and doctor hide it', async (_where, settings, secret) => {
    const home = tempFolder('mf-setup-safety-');
    const result = await setup(
      ['--print', '--client', 'cursor'],
      scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', MODEL_FEED_API_KEY: sandbox.key, ...settings() }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Nothing was written');
    expect(holdsPartOf(result.stdout + result.stderr, secret), result.stderr).toBe(false);
  });

  it("--print masks other servers' secrets in the diff: env values, headers, tokens by prefix", async () => {
    const home = tempFolder('mf-setup-safety-');
    const L = 'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ';
    const ghp = 'ghp_Q7mZp2LxV9cT4nRw8KbY3hJd6FsA1gUe';
    const cursor = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "server-github", "--token", "${ghp}"],
      "env": { "GITHUB_TOKEN": "${ghp}", "OTHER_TOKEN": "${L}", "DD_SITE": "${D}" },
      "headers": { "Authorization": "Bearer sk-other-secret-123" }
    }
  }
}
`;
    put(join(home, '.cursor/mcp.json'), cursor, 0o600);
    const codex = `[mcp_servers.other]\ncommand = "x"\nenv = { API_KEY = "${L}" }\n`;
    put(join(home, '.codex/config.toml'), codex, 0o600);
    const printed = await setup(['--print', '--client', 'cursor,codex'], envFor(home), `${sandbox.key}\n`);
    expect(printed.code, printed.stderr).toBe(0);
    for (const secret of [L, ghp, D, 'sk-other-secret-123', sandbox.key]) {
      expect(holdsPartOf(printed.stdout, secret), `${secret} in\n${printed.stdout}`).toBe(false);
    }
    // What is masked is still recognisable as what it is.
    expect(printed.stdout).toContain('"OTHER_TOKEN": "[redacted]"');
    expect(printed.stdout).toContain('"Authorization": "Bearer [redacted]"');
    expect(printed.stdout).toContain('API_KEY = "[redacted]"');
    expect(printed.stdout).toContain('"args": ["-y", "server-github", "--token", "[redacted]"]');
  });

  it('HOME with escape sequences is named without them; CR LF in it forges no line of the diff', async () => {
    const parent = tempFolder('mf-setup-safety-');
    const escapes = `${parent}/\x1b[2J\x1b]8;;http://evil.example/\x07CLICK\x1b]8;;\x07`;
    const none = await setup(['--yes'], scrubbedEnv({ HOME: escapes, PATH: '/usr/bin:/bin' }));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`No MCP client found in ${parent}/CLICK.`);
    expect(none.stderr).not.toMatch(/[\x07\x1b]/);

    const crlf = `${parent}/x\r\nforged line`;
    const printed = await setup(['--print', '--client', 'codex'], envFor(crlf), `${sandbox.key}\n`);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`+++ ${parent}/x forged line/.codex/config.toml`);
    expect(printed.stdout).not.toMatch(/^forged line/m);
    expect(printed.stdout + printed.stderr).not.toContain('\r');
  });
});

describe('what setup says it did', () => {
  it('"updated" for an entry it changed; no restart advice for a client it left unchanged', async () => {
    const home = tempFolder('mf-setup-safety-');
    put(join(home, '.cursor/mcp.json'), '{}\n', 0o600);
    const first = await setup(['--client', 'cursor'], envFor(home), `${sandbox.key}\n`);
    expect(first.stdout).toContain('Cursor: added model-feed to');
    expect(first.stderr).toContain('Next, to load model-feed: restart Cursor.');
    const moved = await setup(
      ['--client', 'cursor'],
      envFor(home, { MODEL_FEED_BASE_URL: `${sandbox.url}/` }),
      `${sandbox.key}\n`,
    );
    expect(moved.stdout).toContain('unchanged');
    expect(moved.stderr).not.toContain('Next, to load');
    const second = sandbox.key.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    sandbox.addKey(second, 'free');
    const changed = await setup(['--client', 'cursor'], envFor(home), `${second}\n`);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain(
      `Cursor: updated model-feed in ${join(home, '.cursor/mcp.json')} (backup: `,
    );
    expect(changed.stderr).toContain('Next, to load model-feed: restart Cursor.');
  });

  it('a file over the size setup reads is named with its size and the limit, exactly', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.cursor/mcp.json');
    put(path, '', 0o600);
    // Sparse: the size is what is judged, before anything is read.
    execFileSync('truncate', ['-s', '67165022', path]);
    const result = await setup(['--client', 'cursor', '--remove'], envFor(home));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${path} is 67,165,022 bytes, more than the 67,108,864 (64 MiB) setup reads; left it alone.`,
    );
  });
});
