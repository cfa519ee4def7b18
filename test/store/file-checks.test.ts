/**
 * Only regular files of this user's are read from the state and cache folders: a FIFO would block,
 * and a file another user planted could say anything (a huge cursor silences every delivery).
 */

import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiskCache } from '../../src/store/disk-cache.js';
import { acquireLock } from '../../src/store/lock.js';
import { openRegular } from '../../src/store/open-regular.js';
import { readState, StateFileError, saveState } from '../../src/watch/state.js';

const folders: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'mf-file-checks-'));
  folders.push(folder);
  return folder;
}

const uid = process.getuid?.() ?? 0;
const OTHER_UID = uid === 4242 ? 4243 : 4242;

/**
 * A file at `path` that belongs to another user; returns how the refusal names its owner. As root
 * (CI's containers, this machine) the file is handed to another uid. Otherwise, where a file cannot
 * be given away, the process is made to look like another user's from here on.
 */
function foreignFile(path: string, text: string): string {
  writeFileSync(path, text);
  if (uid === 0) {
    chownSync(path, OTHER_UID, OTHER_UID);
    return `uid ${OTHER_UID}`;
  }
  vi.spyOn(process, 'getuid').mockReturnValue(OTHER_UID);
  return `uid ${uid}`;
}

const state = {
  cursor: 42,
  service: 'http://127.0.0.1:1',
  filters: {},
  delivered: 3,
  updatedAt: 'now',
};

describe('openRegular', () => {
  it('refuses a FIFO, a folder and (unless asked to follow) a symbolic link, saying what it is', async () => {
    const folder = tempFolder();
    const fifo = join(folder, 'fifo');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(folder, 'dir'));
    writeFileSync(join(folder, 'file'), 'x');
    symlinkSync(join(folder, 'file'), join(folder, 'link'));
    symlinkSync(fifo, join(folder, 'link-to-fifo'));

    expect(await openRegular(fifo)).toEqual({
      kind: 'refused',
      reason: 'is not a regular file (it is a FIFO)',
    });
    expect(await openRegular(join(folder, 'dir'))).toEqual({
      kind: 'refused',
      reason: 'is not a regular file (it is a folder)',
    });
    expect(await openRegular(join(folder, 'link'))).toEqual({
      kind: 'refused',
      reason: 'is a symbolic link',
    });
    expect(await openRegular(join(folder, 'link-to-fifo'), { followLink: true })).toMatchObject({
      reason: 'is not a regular file (it is a FIFO)',
    });
    expect(await openRegular(join(folder, 'none'))).toEqual({ kind: 'missing' });
    const opened = await openRegular(join(folder, 'link'), { followLink: true });
    expect(opened).toMatchObject({ kind: 'file', size: 1 });
    if (opened.kind === 'file') await opened.file.close();
  });
});

describe('the state file', () => {
  it('a FIFO is refused at once, naming the path', async () => {
    const path = join(tempFolder(), 'state.json');
    execFileSync('mkfifo', [path]);
    await expect(readState(path)).rejects.toThrow(`${path} is not a regular file (it is a FIFO)`);
  });

  it("another user's state file is refused, whatever cursor it holds", async () => {
    const path = join(tempFolder(), 'state.json');
    const planted = JSON.stringify({
      version: 1,
      cursor: Number.MAX_SAFE_INTEGER,
      service: 'x',
      filters: {},
    });
    const owner = foreignFile(path, planted);
    const refused = readState(path);
    await expect(refused).rejects.toBeInstanceOf(StateFileError);
    await expect(refused).rejects.toThrow(`${path} belongs to another user (${owner}`);
  });

  it('a symbolic link to a state file of this user is followed (--state is the user’s choice)', async () => {
    const folder = tempFolder();
    await saveState(join(folder, 'real.json'), state);
    symlinkSync(join(folder, 'real.json'), join(folder, 'state.json'));
    expect(await readState(join(folder, 'state.json'))).toMatchObject({ cursor: 42 });
  });
});

describe('the lock file', () => {
  it("another user's lock file is refused, not taken over", async () => {
    const path = join(tempFolder(), 'state.json.lock');
    const owner = foreignFile(path, '{"pid": 12');
    await expect(acquireLock(path)).rejects.toThrow(`${path} belongs to another user (${owner}`);
  });
});

describe('the disk cache', () => {
  it("another user's entry or 429 record is dropped, never believed", async () => {
    const folder = join(tempFolder(), 'model-feed-mcp');
    const notes: string[] = [];
    const cache = new DiskCache({
      folder,
      baseUrl: 'https://feed.test',
      apiKey: 'mfsk_file_checks_key_01',
      note: (message) => notes.push(message),
    });
    await cache.write('/api/v1/models?', { items: [], total: 0 });
    await cache.writeLimit({ retryAt: Date.now() + 60_000, serviceMessage: 'limit', rateLimit: undefined });
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const text = JSON.stringify({ v: 1, key: '/api/v1/models?', storedAt: Date.now(), body: {} });
      foreignFile(
        path,
        name.endsWith('-429.json') ? JSON.stringify({ v: 1, retryAt: Date.now() + 60_000 }) : text,
      );
    }
    expect(await cache.read('/api/v1/models?')).toBeUndefined();
    expect(await cache.readLimit()).toBeUndefined();
    expect(readdirSync(folder)).toEqual([]);
    expect(notes.filter((note) => note.includes('belongs to another user'))).toHaveLength(2);
  });
});
