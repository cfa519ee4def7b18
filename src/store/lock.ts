/**
 * One process at a time per state file: a lock file beside it, created exclusively, that names
 * its holder (pid, host, start time). A lock whose process is gone is taken over; a living holder
 * is named in the refusal, so the user knows what to stop.
 */

import { hostname, uptime } from 'node:os';
import { dirname } from 'node:path';
import { nodeCrypto, nodeFs } from '../lazy-node.js';
import { ensureFolder, FILE_MODE } from './atomic-file.js';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

export class LockedError extends Error {
  override name = 'LockedError';
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`${path} is locked`);
  }
}

export interface Lock {
  readonly path: string;
  release(): Promise<void>;
}

// Reading a lock file is reading a file anyone could have written: bounded, parsed defensively.
const MAX_LOCK_BYTES = 4096;

async function readHolder(path: string): Promise<LockHolder | undefined | 'missing'> {
  let text: string;
  try {
    const handle = await nodeFs().open(path, 'r');
    try {
      const buffer = Buffer.alloc(MAX_LOCK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isSafeInteger(value.pid) && (value.pid as number) > 0 && typeof value.host === 'string') {
      return { pid: value.pid as number, host: value.host, startedAt: String(value.startedAt ?? '') };
    }
  } catch {
    // Not a lock this code wrote (ours are created whole): judged below as stale.
  }
  return undefined;
}

/** Signal 0 checks that a process exists; EPERM means it exists but belongs to someone else. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When this machine last booted (epoch ms): a lock written before it belongs to a process now gone. */
function bootTime(): number {
  return Date.now() - uptime() * 1000;
}

function isStale(holder: LockHolder | undefined, self: string): boolean {
  // Not a lock this code wrote (ours are created whole): nobody holds it.
  if (holder === undefined) return true;
  // A lock from another machine (a shared home folder) cannot be judged from here: never taken.
  if (holder.host !== self) return false;
  // Our own pid in a lock we do not hold: a container, where every run is PID 1, restarted.
  if (holder.pid === process.pid) return true;
  // Written before the last boot: its pid may belong to another process by now.
  const started = Date.parse(holder.startedAt);
  if (!Number.isNaN(started) && started < bootTime() - 60_000) return true;
  return !processAlive(holder.pid);
}

/**
 * Creates the lock with its content in one step: written to a temp file, then hard-linked to the
 * lock's name, which fails if the name exists. A lock file is never seen empty or half written, even
 * after a kill -9 in the middle, so an unreadable one is never a lock in the making.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await nodeFs().open(temp, 'wx', FILE_MODE);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await nodeFs().link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await nodeFs().rm(temp, { force: true });
  }
}

/**
 * Moves a stale lock aside. Renaming is atomic, so of two processes taking over the same stale lock
 * only one moves it; if what was moved turns out to be a fresh lock another process created
 * meanwhile, it is put back and this process refuses.
 */
async function takeOver(path: string, stale: LockHolder | undefined): Promise<'taken' | 'lost'> {
  const aside = `${path}.${process.pid}.stale`;
  try {
    await nodeFs().rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'taken';
    throw error;
  }
  const moved = await readHolder(aside);
  const same =
    moved === 'missing' ||
    (moved === undefined ? stale === undefined : stale !== undefined && moved.pid === stale.pid);
  if (!same) {
    await nodeFs()
      .link(aside, path)
      .catch(() => {});
    await nodeFs().rm(aside, { force: true });
    return 'lost';
  }
  await nodeFs().rm(aside, { force: true });
  return 'taken';
}

/** Takes the lock at `path`, or throws LockedError naming the process that holds it. */
export async function acquireLock(path: string, now: () => Date = () => new Date()): Promise<Lock> {
  await ensureFolder(dirname(path));
  const self = hostname();
  const content = JSON.stringify({ pid: process.pid, host: self, startedAt: now().toISOString() });
  // Bounded: each round either creates the lock, refuses, or removes one stale lock.
  for (let round = 0; round < 5; round++) {
    if (await createExclusive(path, content)) {
      return {
        path,
        release: async () => {
          const holder = await readHolder(path).catch(() => undefined);
          if (holder !== undefined && holder !== 'missing' && holder.pid === process.pid) {
            await nodeFs().rm(path, { force: true });
          }
        },
      };
    }
    const holder = await readHolder(path);
    if (holder === 'missing') continue;
    if (!isStale(holder, self)) throw new LockedError(path, holder);
    if ((await takeOver(path, holder)) === 'lost') {
      throw new LockedError(path, (await readHolder(path).catch(() => undefined)) as LockHolder | undefined);
    }
  }
  throw new LockedError(path, undefined);
}
