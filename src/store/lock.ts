/**
 * One process at a time per state file: a lock file beside it, created exclusively, that names
 * its holder (pid, host, start time, and a nonce that makes each lock's bytes its own). A lock whose
 * process is gone is taken over; a living holder is named in the refusal, so the user knows what to
 * stop. The holder checks the lock is still its own before each save (`check`).
 */

import { hostname, uptime } from 'node:os';
import { dirname } from 'node:path';
import { StateFileError } from '../errors.js';
import { nodeCrypto, nodeFs } from '../lazy-node.js';
import { ensureFolder, FILE_MODE } from './atomic-file.js';
import { openRegular, readHead } from './open-regular.js';

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
  /** Throws StateFileError unless the file is still this lock: checked before every save. */
  check(): Promise<void>;
  release(): Promise<void>;
}

// Reading a lock file is reading a file anyone could have written: bounded, parsed defensively.
const MAX_LOCK_BYTES = 4096;

interface Found {
  /** The file's bytes, which name it: ours carry a random nonce, so no two locks share them. */
  bytes: Buffer;
  /** A short name for those bytes, for the file that guards taking this very lock over. */
  id: string;
  /** Undefined when it is not a lock this code wrote. */
  holder: LockHolder | undefined;
}

async function readLock(path: string): Promise<Found | 'missing'> {
  const opened = await openRegular(path);
  if (opened.kind === 'missing') return 'missing';
  if (opened.kind === 'refused') {
    throw new StateFileError(
      `its lock ${path} ${opened.reason}, and a lock must be a regular file of this user's. If no watcher uses it, remove it`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = (await readHead(opened.file, MAX_LOCK_BYTES)).subarray(0, MAX_LOCK_BYTES);
  } finally {
    await opened.file.close();
  }
  const id = nodeCrypto().createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return { bytes, id, holder: parseHolder(bytes.toString('utf8')) };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isSafeInteger(value.pid) && (value.pid as number) > 0 && typeof value.host === 'string') {
      return { pid: value.pid as number, host: value.host, startedAt: String(value.startedAt ?? '') };
    }
  } catch {
    // Not a lock this code wrote (ours are created whole): judged as stale.
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

/** A temp file beside `path` holding `content`, synced: what a lock is made from, whole. */
async function writeTemp(path: string, content: string): Promise<string> {
  const temp = `${path}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`;
  const handle = await nodeFs().open(temp, 'wx', FILE_MODE);
  try {
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A full disk: the empty temp file is not left behind.
    await nodeFs().rm(temp, { force: true });
    throw error;
  }
  return temp;
}

/**
 * Creates the lock with its content in one step: written to a temp file, then hard-linked to the
 * lock's name, which fails if the name exists. A lock file is never seen empty or half written, even
 * after a kill -9 in the middle, so an unreadable one is never a lock in the making.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  let temp: string | undefined;
  try {
    temp = await writeTemp(path, content);
    await nodeFs().link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    if (temp) await nodeFs().rm(temp, { force: true });
  }
}

/** Puts `content` in place of whatever is at `path`, in one step (rename): it is never missing. */
async function replace(path: string, content: string): Promise<void> {
  const temp = await writeTemp(path, content);
  try {
    await nodeFs().rename(temp, path);
  } catch (error) {
    await nodeFs().rm(temp, { force: true });
    throw error;
  }
}

/** Rounds per level: each creates the lock, refuses, replaces a stale lock, or waits for a taker. */
const ROUNDS = 5;
/** A taker that died mid-takeover leaves its guard, itself taken over one level down; so, rarely, on. */
const MAX_DEPTH = 3;
/** A takeover is a few file operations: the taker's own lock is there within milliseconds. */
const TAKER_WAIT_MS = 15;

type Claim = { held: true } | { held: false; holder: LockHolder | undefined };

/**
 * Makes `path` hold `content` unless a live process holds it. Taking over a stale lock is guarded by
 * a file named after that lock's bytes, created exclusively: of many processes that judged the same
 * lock stale, one creates the guard; it checks that the lock is still the one judged, and renames
 * its own over it, so the name is never empty for a third process to create meanwhile. Only a guard
 * holder replaces a lock, and only the lock its guard names: two holders cannot both succeed.
 * Moving a lock aside and putting it back, as this did before, could lose a fresh one.
 */
async function claim(path: string, content: string, self: string, depth: number): Promise<Claim> {
  let holder: LockHolder | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    if (await createExclusive(path, content)) return { held: true };
    const found = await readLock(path);
    if (found === 'missing') continue;
    holder = found.holder;
    if (!isStale(found.holder, self)) return { held: false, holder };
    if (depth === MAX_DEPTH) break;
    const guard = `${path}.${found.id}.takeover`;
    const taker = await claim(guard, content, self, depth + 1);
    if (!taker.held) {
      // Another process is taking this lock over right now: wait, then name whoever holds it.
      holder = taker.holder;
      await new Promise((resolve) => setTimeout(resolve, TAKER_WAIT_MS));
      continue;
    }
    try {
      const now = await readLock(path);
      if (now !== 'missing' && now.id === found.id) {
        await replace(path, content);
        return { held: true };
      }
    } finally {
      await nodeFs().rm(guard, { force: true });
    }
  }
  return { held: false, holder };
}

/** Takes the lock at `path`, or throws LockedError naming the process that holds it. */
export async function acquireLock(path: string, now: () => Date = () => new Date()): Promise<Lock> {
  await ensureFolder(dirname(path));
  const self = hostname();
  const nonce = nodeCrypto().randomBytes(8).toString('hex');
  const content = JSON.stringify({ pid: process.pid, host: self, startedAt: now().toISOString(), nonce });
  const claimed = await claim(path, content, self, 0);
  if (!claimed.held) throw new LockedError(path, claimed.holder);
  const ours = Buffer.from(content);
  const isOurs = (found: Found | 'missing') => found !== 'missing' && found.bytes.equals(ours);
  return {
    path,
    check: async () => {
      const found = await readLock(path);
      if (isOurs(found)) return;
      const now =
        found === 'missing'
          ? 'it was removed'
          : found.holder
            ? `process ${found.holder.pid} on ${found.holder.host} holds it now`
            : 'another file is in its place';
      throw new StateFileError(
        `its lock ${path} is no longer this watcher's (${now}). It stops rather than move a cursor another watcher may be moving too; run one watcher per state file`,
      );
    },
    release: async () => {
      if (isOurs(await readLock(path).catch(() => 'missing' as const)))
        await nodeFs().rm(path, { force: true });
    },
  };
}
