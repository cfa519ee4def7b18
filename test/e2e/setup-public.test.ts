/**
 * `setup` for someone with no account: `--source public` (or MODEL_FEED_SOURCE=public, or Enter at
 * the base URL question) writes an entry that starts the server on the public origins, with
 * `--source public` in its args and no key or base URL; over a keyed entry it takes those out. The
 * built CLI on temp HOME folders, as test/e2e/setup.test.ts drives it; the prompt on a
 * pseudo-terminal, as test/e2e/setup-terminal.test.ts does.
 */

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { getNodeValue, parseToml, parseTree } from '../../src/setup/formats.js';
import { spawnPty } from '../support/pty.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, type Output, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

function setup(args: string[], env: Record<string, string>, input = ''): Promise<Output> {
  return run(['setup', ...args], env, { input });
}

/** A user's shell: HOME of its own, no key, no base URL, and a PATH without any real `claude`. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({
    HOME: home,
    APPDATA: join(home, 'AppData', 'Roaming'),
    PATH: '/usr/bin:/bin',
    TERM: 'dumb',
    ...extra,
  });
}

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o644);
}

type Entry = { command: string; args: string[]; env?: Record<string, string> };

function jsonEntry(path: string, top = 'mcpServers'): Entry {
  const parsed = getNodeValue(parseTree(readFileSync(path, 'utf8'))!) as Record<
    string,
    Record<string, Entry>
  >;
  return parsed[top]!['model-feed']!;
}

const PUBLIC_ARGS = [BIN, '--source', 'public'];

describe('setup --source public', () => {
  it('--client cursor --yes: no key asked or checked, the entry runs the server on the public origins', async () => {
    const home = tempFolder('mf-setup-public-');
    const before = sandbox.requests.length;
    const result = await setup(['--source', 'public', '--client', 'cursor', '--yes'], envFor(home));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Source: the public origins');
    expect(result.stderr).toContain('model-feed-mcp doctor --source public');
    expect(result.stderr).not.toContain('Checking the key');
    expect(result.stdout).toContain('Cursor: added model-feed to');
    expect(jsonEntry(join(home, '.cursor/mcp.json'))).toEqual({ command: NODE, args: PUBLIC_ARGS, env: {} });
    expect(sandbox.requests.length).toBe(before);
  });

  it('MODEL_FEED_SOURCE=public in the shell does the same, for every client format', async () => {
    const home = tempFolder('mf-setup-public-');
    const result = await setup(
      ['--client', 'cursor,vscode,codex,zed'],
      envFor(home, { MODEL_FEED_SOURCE: 'public' }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(jsonEntry(join(home, '.cursor/mcp.json')).args).toEqual(PUBLIC_ARGS);
    expect(jsonEntry(join(home, '.config/zed/settings.json'), 'context_servers').args).toEqual(PUBLIC_ARGS);
    // VS Code: no password input, which would ask for a key no one needs.
    const vscode = readFileSync(join(home, '.config/Code/User/mcp.json'), 'utf8');
    expect(jsonEntry(join(home, '.config/Code/User/mcp.json'), 'servers')).toEqual({
      type: 'stdio',
      command: NODE,
      args: PUBLIC_ARGS,
      env: {},
    });
    expect(vscode).not.toContain('model-feed-api-key');
    const codex = parseToml(readFileSync(join(home, '.codex/config.toml'), 'utf8')) as {
      mcp_servers: Record<string, Entry>;
    };
    expect(codex.mcp_servers['model-feed']).toMatchObject({ command: NODE, args: PUBLIC_ARGS, env: {} });
  });

  it('over a keyed entry: the key and base URL go, a variable the user added stays; and back again', async () => {
    const home = tempFolder('mf-setup-public-');
    const cursor = join(home, '.cursor/mcp.json');
    const vscode = join(home, '.config/Code/User/mcp.json');
    const codex = join(home, '.codex/config.toml');
    const keyed = await setup(
      ['--client', 'cursor,vscode,codex'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key }),
    );
    expect(keyed.code, keyed.stderr).toBe(0);
    // The user adds a variable of their own to the Cursor entry.
    put(
      cursor,
      readFileSync(cursor, 'utf8').replace('"env": {', '"env": {\n        "MODEL_FEED_LOG_LEVEL": "debug",'),
    );

    const result = await setup(['--source', 'public', '--client', 'cursor,vscode,codex'], envFor(home));
    expect(result.code, result.stderr).toBe(0);
    expect(jsonEntry(cursor)).toEqual({
      command: NODE,
      args: PUBLIC_ARGS,
      env: { MODEL_FEED_LOG_LEVEL: 'debug' },
    });
    expect(readFileSync(cursor, 'utf8')).not.toContain(sandbox.key);
    expect(jsonEntry(vscode, 'servers').env).toEqual({});
    expect(readFileSync(vscode, 'utf8')).not.toContain('model-feed-api-key');
    const toml = readFileSync(codex, 'utf8');
    expect(toml).not.toContain(sandbox.key);
    expect(
      (parseToml(toml) as { mcp_servers: Record<string, Entry> }).mcp_servers['model-feed']?.env,
    ).toEqual({});

    // A keyed setup over the public entry: args replaced whole, so no `--source public` is left.
    const back = await setup(
      ['--client', 'cursor,vscode'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key }),
    );
    expect(back.code, back.stderr).toBe(0);
    expect(jsonEntry(cursor)).toEqual({
      command: NODE,
      args: [BIN],
      env: {
        MODEL_FEED_LOG_LEVEL: 'debug',
        MODEL_FEED_API_KEY: sandbox.key,
        MODEL_FEED_BASE_URL: sandbox.url,
      },
    });
    expect(readFileSync(vscode, 'utf8')).toContain(`\${input:model-feed-api-key}`);
  });

  it('--print shows the entry and writes nothing', async () => {
    const home = tempFolder('mf-setup-public-');
    const result = await setup(['--source', 'public', '--client', 'cursor', '--print'], envFor(home));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"--source",');
    expect(result.stdout).not.toContain('MODEL_FEED_API_KEY');
  });

  it('--source sample is refused like --sandbox; a source that does not exist too', async () => {
    const home = tempFolder('mf-setup-public-');
    const sample = await setup(['--source', 'sample', '--client', 'cursor'], envFor(home));
    expect(sample.code).toBe(2);
    expect(sample.stderr).toContain('does not take --sandbox (--source sample)');
    const typo = await setup(['--client', 'cursor'], envFor(home, { MODEL_FEED_SOURCE: 'pubic' }));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('MODEL_FEED_SOURCE must be one of service, public, sample; got "pubic"');
  });

  it('no key and no terminal: the refusal names --source public as the way on without an account', async () => {
    const home = tempFolder('mf-setup-public-');
    const noKey = await setup(['--client', 'cursor'], envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }));
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('With no account, run `model-feed-mcp setup --source public`');
    const nothing = await setup(['--client', 'cursor'], envFor(home));
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(
      /No service address: .*With no account, run `model-feed-mcp setup --source public`/,
    );
  });
});

describe('setup at a terminal with no account', () => {
  it('Enter at the base URL question chooses the public origins: no key asked, the entry written', async () => {
    const home = tempFolder('mf-setup-public-');
    mkdirSync(join(home, '.cursor'));
    const pty = spawnPty([NODE, BIN, 'setup'], { env: envFor(home) });
    try {
      await pty.waitFor('Configure which?');
      pty.type('\r'); // the clients found: Cursor
      await pty.waitFor('no account? press Enter to use public data');
      const from = pty.output().length;
      pty.type('\r');
      await pty.waitFor('Cursor: added model-feed to', { from });
      expect(await pty.exited).toBe(0);
      expect(pty.output().slice(from)).not.toContain('API key');
      expect(jsonEntry(join(home, '.cursor/mcp.json'))).toEqual({
        command: NODE,
        args: PUBLIC_ARGS,
        env: {},
      });
    } finally {
      await pty.close();
    }
  });
});
