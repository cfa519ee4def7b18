/**
 * The files `setup` touches, the built CLI on temp HOME folders: backups and modes across an add and
 * a remove, owners when root configures another user's HOME, duplicate keys, and paths that are
 * not regular files or cannot be parsed without bounds. Every HOME made here is removed afterwards.
 */

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { type Output, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
const homes: string[] = [];
afterAll(async () => {
  await sandbox.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'mf-setup-files-'));
  homes.push(home);
  return home;
}

function put(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', MODEL_FEED_BASE_URL: sandbox.url, ...extra });
}

function setup(args: string[], env: Record<string, string>, input = ''): Promise<Output> {
  return run(['setup', ...args], env, { input });
}

/** Every file under `folder`, recursively, as paths. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());
}

const CURSOR = `{
  // mine
  "mcpServers": {
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] }
  }
}
`;

describe('--remove leaves no key behind', () => {
  it('deletes the backups that hold the entry, names them, and gives the file its mode back', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    put(path, CURSOR, 0o644);
    const second = 'mfsk_second_key_00000000000000000000';
    sandbox.addKey(second, 'free');

    // Two adds with different keys: the second backs up a file that holds the first key.
    expect((await setup(['--client', 'cursor'], envFor(home), `${sandbox.key}\n`)).code).toBe(0);
    expect((await setup(['--client', 'cursor'], envFor(home), `${second}\n`)).code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const removed = await setup(['--client', 'cursor', '--remove'], envFor(home));
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(CURSOR);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    for (const file of filesUnder(home)) {
      const text = readFileSync(file, 'utf8');
      expect(text.includes(sandbox.key) || text.includes(second), file).toBe(false);
    }
    const left = readdirSync(dirname(path)).filter((name) => name.endsWith('.bak'));
    // The first backup is the original, without the entry: it stays, and so does its mode.
    expect(left).toHaveLength(1);
    expect(readFileSync(join(dirname(path), left[0]!), 'utf8')).toBe(CURSOR);
    expect(removed.stdout).toMatch(/deleted 1 backup that held it: .*mcp\.json\.\d{8}-\d{6}(-\d+)?\.bak/);
  });

  it('--remove --print shows the change with the key in the file masked, and the backups it would delete', async () => {
    const home = tempHome();
    const path = join(home, '.codex/config.toml');
    const key = 'mfsk_in_the_file_0123456789abcdef';
    const original = 'model = "o3"\n';
    put(
      path,
      `${original}\n[mcp_servers.model-feed]\ncommand = "npx"\nenv = { MODEL_FEED_API_KEY = "${key}" }\n`,
    );
    put(`${path}.20260101-000000.bak`, readFileSync(path, 'utf8'), 0o600);
    const printed = await setup(['--client', 'codex', '--remove', '--print'], envFor(home));
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain(key);
    expect(printed.stdout).toContain('-env = { MODEL_FEED_API_KEY = "<MODEL_FEED_API_KEY: mfsk…cdef>" }');
    expect(printed.stdout).toContain(
      `Codex: would delete 1 backup that held it: ${path}.20260101-000000.bak`,
    );
    expect(readdirSync(dirname(path))).toHaveLength(2);
  });
});

describe('root configuring another user', () => {
  // Only root can give a file to another user; the suite runs as root here and in CI.
  it.runIf(process.getuid?.() === 0)(
    "keeps the owner of the files it edits; files and folders it creates belong to the folder's owner",
    async () => {
      const home = tempHome();
      const path = join(home, '.cursor/mcp.json');
      put(path, CURSOR, 0o644);
      for (const p of [home, dirname(path), path]) chownSync(p, 1234, 1234);
      const result = await setup(['--client', 'cursor,gemini'], envFor(home), `${sandbox.key}\n`);
      expect(result.code, result.stderr).toBe(0);
      const made = [
        path,
        join(home, '.gemini'),
        join(home, '.gemini/settings.json'),
        ...readdirSync(dirname(path)).map((name) => join(dirname(path), name)),
      ];
      expect(new Set(made).size).toBe(4);
      for (const p of made) {
        const { uid, gid } = statSync(p);
        expect({ p, uid, gid }).toEqual({ p, uid: 1234, gid: 1234 });
      }
      const removed = await setup(['--client', 'cursor', '--remove'], envFor(home));
      expect(removed.code, removed.stderr).toBe(0);
      expect(statSync(path)).toMatchObject({ uid: 1234, gid: 1234 });
    },
  );
});

describe('duplicate keys', () => {
  it('a second mcpServers is refused, both lines named, the file unchanged; other clients still done', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    const twice =
      '{\n  "mcpServers": {},\n  "theme": "dark",\n  "mcpServers": { "a": { "command": "x" } }\n}\n';
    put(path, twice);
    const result = await setup(['--client', 'cursor,gemini'], envFor(home), `${sandbox.key}\n`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cursor: ${path}: "mcpServers" appears twice, on lines 2 and 4`);
    expect(readFileSync(path, 'utf8')).toBe(twice);
    expect(readdirSync(dirname(path))).toEqual(['mcp.json']);
    expect(readFileSync(join(home, '.gemini/settings.json'), 'utf8')).toContain('"model-feed"');
  });
});

describe('paths that are not regular files, and files too deep to parse', () => {
  it('a FIFO is refused at once, not read; a folder too; the other clients are still configured', async () => {
    const home = tempHome();
    const fifo = join(home, '.codex/config.toml');
    mkdirSync(dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(home, '.cursor/mcp.json'), { recursive: true });
    const result = await setup(['--client', 'codex,cursor,gemini'], envFor(home), `${sandbox.key}\n`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Codex: ${fifo} is a FIFO (named pipe), not a regular file; left it alone.`,
    );
    expect(result.stderr).toContain(
      `Cursor: ${join(home, '.cursor/mcp.json')} is a folder, not a regular file; left it alone.`,
    );
    expect(result.stderr).not.toContain('Internal error');
    expect(readFileSync(join(home, '.gemini/settings.json'), 'utf8')).toContain('"model-feed"');
  });

  it('a JSONC file nested 100,000 deep is refused with its line; the other clients are still configured', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    const deep = `{\n  "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}\n}\n`;
    put(path, deep);
    const result = await setup(['--client', 'cursor,gemini'], envFor(home), `${sandbox.key}\n`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cursor: cannot parse ${path}:2:`);
    expect(result.stderr).toContain('nested more than 128 levels deep');
    expect(result.stderr).not.toContain('Internal error');
    expect(readFileSync(path, 'utf8')).toBe(deep);
    expect(readFileSync(join(home, '.gemini/settings.json'), 'utf8')).toContain('"model-feed"');
  });
});

describe('--remove and the last line', () => {
  it.each([
    ['cursor', '.cursor/mcp.json', '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}'],
    ['codex', '.codex/config.toml', 'model = "o3"\n\n[mcp_servers.a]\ncommand = "x"'],
    ['codex', '.codex/config.toml', 'model = "o3"\r\n[mcp_servers.a]\r\ncommand = "x"'],
  ])('%s: a file with no final newline comes back byte for byte', async (client, file, original) => {
    const home = tempHome();
    const path = join(home, file);
    put(path, original);
    expect((await setup(['--client', client], envFor(home), `${sandbox.key}\n`)).code).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain('model-feed');
    const removed = await setup(['--client', client, '--remove'], envFor(home));
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(original);
    expect(existsSync(path)).toBe(true);
  });
});
