/**
 * setup's write is atomic: when any step of it fails, the config is as it was and no temp file is
 * left beside it. Failures are made by making one file-system call fail, so this holds whoever runs
 * the tests (root may write into a read-only folder: test/e2e/setup.test.ts covers that for others).
 */

import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WriteStopped } from '../../src/setup/replace-file.js';
import { readConfig, writeConfig } from '../../src/setup/write.js';

const ORIGINAL = '{\n  "mcpServers": {}\n}\n';
const NOW = new Date('2026-11-23T12:00:00Z');
const PLAN = { mode: 0o600, backupMode: 0o600 };

const folders: string[] = [];
const fifos: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  // A reader blocked on a FIFO (the bug these tests catch) holds a thread until a writer comes.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // ENXIO: nobody was reading it.
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'mf-write-'));
  folders.push(made);
  return made;
}

function config(): string {
  const path = join(folder(), 'mcp.json');
  writeFileSync(path, ORIGINAL);
  return path;
}

const fails = (code: string) => async () => {
  throw Object.assign(new Error(`${code}: simulated`), { code });
};

/** A write nothing stops. */
const UNSTOPPED = { signal: new AbortController().signal, track: () => () => {} };

describe('writing a client config', () => {
  it('writes the new text, with a backup of the old, and nothing else beside it', async () => {
    const path = config();
    const backup = await writeConfig(await readConfig(path), '{"new": true}\n', NOW, PLAN, UNSTOPPED);
    expect(readFileSync(path, 'utf8')).toBe('{"new": true}\n');
    expect(readFileSync(backup!, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..')).sort()).toEqual(['mcp.json', 'mcp.json.20261123-120000.bak']);
  });

  it.each([
    ['the temp file cannot be created', 'open', 'EACCES'],
    ['the rename over the original fails', 'rename', 'EXDEV'],
  ] as const)('%s: the original is intact and no temp file is left', async (_case, call, code) => {
    const path = config();
    const file = await readConfig(path);
    vi.spyOn(fsp, call).mockImplementation(fails(code));
    await expect(writeConfig(file, '{"new": true}\n', NOW, PLAN, UNSTOPPED)).rejects.toThrow(code);
    vi.restoreAllMocks();
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a write stopped, or a backup cut short', () => {
  it('a stop before the rename removes the temp file and the new backup: the folder is as it was', async () => {
    const path = config();
    const stop = new AbortController();
    // Stopped once the config's own temp file is being written, after its backup was made.
    const guard = {
      signal: stop.signal,
      track: (temp: string) => {
        if (!temp.includes('.bak.')) stop.abort();
        return () => {};
      },
    };
    await expect(writeConfig(await readConfig(path), '{"new": true}\n', NOW, PLAN, guard)).rejects.toThrow(
      WriteStopped,
    );
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..'))).toEqual(['mcp.json']);
  });

  it('a backup whose copy fails part-way is not left, empty or partial, under its name', async () => {
    const path = config();
    vi.spyOn(fsp, 'copyFile').mockImplementation(async (_from, to) => {
      writeFileSync(String(to), ORIGINAL.slice(0, 5));
      throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
    });
    await expect(
      writeConfig(await readConfig(path), '{"new": true}\n', NOW, PLAN, UNSTOPPED),
    ).rejects.toThrow('ENOSPC');
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..'))).toEqual(['mcp.json']);
  });
});

describe('a config path that is not a regular file', () => {
  function fifo(): string {
    const path = join(folder(), 'config.toml');
    execFileSync('mkfifo', [path]);
    fifos.push(path);
    return path;
  }

  it('a FIFO is refused at once, without waiting for a writer', async () => {
    await expect(readConfig(fifo())).rejects.toThrow('is a FIFO (named pipe), not a regular file');
  }, 5_000);

  it('so is a symlink to a FIFO, and a folder; a symlink to a regular file is read through', async () => {
    const base = folder();
    const link = join(base, 'link.json');
    symlinkSync(fifo(), link);
    await expect(readConfig(link)).rejects.toThrow('is a FIFO (named pipe), not a regular file');
    const dir = join(base, 'dir.json');
    mkdirSync(dir);
    await expect(readConfig(dir)).rejects.toThrow('is a folder, not a regular file');
    const real = config();
    const toReal = join(base, 'real-link.json');
    symlinkSync(real, toReal);
    expect(await readConfig(toReal)).toMatchObject({ path: real, text: ORIGINAL });
  }, 5_000);
});
