import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/store/atomic-file.js';
import { acquireLock, LockedError } from '../../src/store/lock.js';
import { cacheFolder, stateFolder } from '../../src/store/paths.js';
import { readState, StateFileError, saveState } from '../../src/watch/state.js';
import { tempFolder } from '../support/temp.js';

const dir = () => tempFolder('mf-store-');

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

async function lockedBy(path: string): Promise<LockedError> {
  try {
    await acquireLock(path);
  } catch (error) {
    if (error instanceof LockedError) return error;
    throw error;
  }
  throw new Error('the lock was granted');
}

describe('acquireLock', () => {
  it('refuses while the holder lives, naming it; frees on release', async () => {
    const path = join(dir(), 'state.json.lock');
    const lock = await acquireLock(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Created whole through a temp file, which is gone.
    expect(readdirSync(join(path, '..'))).toEqual(['state.json.lock']);
    await lock.release();
    expect(existsSync(path)).toBe(false);
    // A live holder: another process (the test runner's parent) on this machine.
    writeFileSync(
      path,
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: new Date().toISOString() }),
    );
    const refused = await lockedBy(path);
    expect(refused.holder).toMatchObject({ pid: process.ppid, host: hostname() });
  });

  it('takes over a lock naming its own pid (a restarted container, where every run is PID 1)', async () => {
    const path = join(dir(), 'state.json.lock');
    writeFileSync(
      path,
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }),
    );
    await (await acquireLock(path)).release();
  });

  it('takes over a lock written before the last boot, whatever its pid', async () => {
    const path = join(dir(), 'state.json.lock');
    writeFileSync(
      path,
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2001-01-01T00:00:00Z' }),
    );
    await (await acquireLock(path)).release();
  });

  it('takes over the lock of a process that died', async () => {
    const path = join(dir(), 'state.json.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: 'then' }));
    const lock = await acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('never takes the lock of another machine; an unreadable one (not ours) is stale', async () => {
    const foreign = join(dir(), 'a.lock');
    writeFileSync(foreign, JSON.stringify({ pid: deadPid(), host: 'another-machine', startedAt: '' }));
    expect((await lockedBy(foreign)).holder?.host).toBe('another-machine');

    const torn = join(dir(), 'b.lock');
    writeFileSync(torn, '{"pid": 12');
    await (await acquireLock(torn)).release();
  });

  it('a takeover guard left by a taker that died is taken over too; a live taker is named', async () => {
    const folder = dir();
    const path = join(folder, 'state.json.lock');
    const stale = JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: 'then' });
    const guard = `${path}.${createHash('sha256').update(stale).digest('hex').slice(0, 16)}.takeover`;
    // A process judged the lock stale, created the guard, and was killed before replacing the lock.
    writeFileSync(path, stale);
    writeFileSync(guard, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: 'then' }));
    const lock = await acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    expect(readdirSync(folder)).toEqual(['state.json.lock']);
    await lock.release();

    // A live process is taking the stale lock over (it holds the guard): refused, naming that process.
    writeFileSync(path, stale);
    writeFileSync(
      guard,
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: new Date().toISOString() }),
    );
    expect((await lockedBy(path)).holder?.pid).toBe(process.ppid);
    expect(readFileSync(path, 'utf8')).toBe(stale);
    rmSync(folder, { recursive: true });
  });

  it('check passes while the lock is ours, and fails once it was taken over or removed', async () => {
    const folder = dir();
    const path = join(folder, 'state.json.lock');
    const lock = await acquireLock(path);
    await lock.check();
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '' }));
    await expect(lock.check()).rejects.toThrow(`process ${process.ppid} on ${hostname()} holds it now`);
    rmSync(path);
    await expect(lock.check()).rejects.toThrow('it was removed');
    await expect(lock.check()).rejects.toBeInstanceOf(StateFileError);
    rmSync(folder, { recursive: true });
  });

  it('release leaves a lock another process holds alone', async () => {
    const path = join(dir(), 'state.json.lock');
    const lock = await acquireLock(path);
    writeFileSync(path, JSON.stringify({ pid: 1, host: hostname(), startedAt: '' }));
    await lock.release();
    expect(existsSync(path)).toBe(true);
  });
});

describe('state files', () => {
  it('round-trips, written whole and user-only; none yet reads as undefined', async () => {
    const path = join(dir(), 'nested', 'state.json');
    expect(await readState(path)).toBeUndefined();
    await saveState(path, {
      cursor: 42,
      service: 'http://127.0.0.1:1',
      filters: { type: 'deprecation' },
      delivered: 3,
      updatedAt: 'now',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await readState(path)).toMatchObject({
      cursor: 42,
      filters: { type: 'deprecation' },
      delivered: 3,
    });
  });

  it('a file that is not a state file is an error, never a guessed cursor', async () => {
    const path = join(dir(), 'state.json');
    for (const text of ['not json', '{"version":1,"cursor":-1}', '{"version":2,"cursor":5}', '[]', 'null']) {
      writeFileSync(path, text);
      await expect(readState(path)).rejects.toBeInstanceOf(StateFileError);
    }
    // Past the 2 MiB a state file with its remembered changes can reach.
    writeFileSync(path, 'x'.repeat(3 * 1024 * 1024));
    await expect(readState(path)).rejects.toThrow(/too large/);
  });

  it('atomic writes leave no temp file behind', async () => {
    const folder = dir();
    await writeFileAtomic(join(folder, 'f'), 'one');
    await writeFileAtomic(join(folder, 'f'), 'two');
    expect(readFileSync(join(folder, 'f'), 'utf8')).toBe('two');
    expect(spawnSync('ls', ['-A', folder]).stdout.toString().trim()).toBe('f');
  });
});

describe('folders per platform', () => {
  const home = '/home/u';
  it.each([
    ['linux', {}, '/home/u/.local/state/model-feed-mcp', '/home/u/.cache/model-feed-mcp'],
    [
      'linux',
      { XDG_STATE_HOME: '/x/state', XDG_CACHE_HOME: '/x/cache' },
      '/x/state/model-feed-mcp',
      '/x/cache/model-feed-mcp',
    ],
    [
      'linux',
      { XDG_STATE_HOME: 'relative' },
      '/home/u/.local/state/model-feed-mcp',
      '/home/u/.cache/model-feed-mcp',
    ],
    [
      'darwin',
      {},
      '/home/u/Library/Application Support/model-feed-mcp',
      '/home/u/Library/Caches/model-feed-mcp',
    ],
  ] as const)('%s %j', (platform, env, state, cache) => {
    expect(stateFolder({ env, platform, home })).toBe(state);
    expect(cacheFolder({ env, platform, home })).toBe(cache);
  });

  it('win32 uses LOCALAPPDATA', () => {
    const facts = { env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32' as const, home };
    expect(stateFolder(facts)).toContain('model-feed-mcp');
    expect(stateFolder(facts).startsWith('C:\\Users\\u\\AppData\\Local')).toBe(true);
  });
});
