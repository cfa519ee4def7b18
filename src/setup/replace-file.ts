/**
 * How setup replaces a client's file and makes its backup: whole or not at all, and never leaving a
 * temp file behind, since a config's temp file holds the key. Like the store's atomic write (temp
 * file beside the target, fsync, rename, fsync of the folder), with two more duties: a stop signal
 * is heeded between steps, the temp file removed and the old file left as it was (once renamed, the
 * change stands and is reported); and temp files that a run killed outright (`kill -9`) left
 * behind are found by their name, `.<file>.<pid>.<hex>.tmp`, and removed by the next run.
 */

import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto, nodeFs } from '../lazy-node.js';
import { FOLDER_MODE } from '../store/atomic-file.js';

/** The write stopped, by a stop signal, before it replaced anything; nothing of it is left. */
export class WriteStopped extends Error {
  override name = 'WriteStopped';
  constructor() {
    super('stopped before the file was replaced');
  }
}

/** What a write heeds: the signal that stops it, and where it reports its temp files. */
export interface WriteGuard {
  signal: AbortSignal;
  /** Marks a temp file being written (removed if the process must end at once); returns the unmark. */
  track(path: string): () => void;
}

/** Small enough that a stop signal is heeded within a moment, even on a slow disk. */
const CHUNK_BYTES = 4 * 1024 * 1024;

function tempNameFor(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`,
  );
}

function heed(guard: WriteGuard): void {
  if (guard.signal.aborted) throw new WriteStopped();
}

async function fsyncFolder(folder: string): Promise<void> {
  // Not every platform lets a folder be opened for fsync (Windows does not): best effort.
  try {
    const handle = await nodeFs().open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The rename is still atomic; only its durability across a power cut is less certain.
  }
}

/**
 * Replaces `path` with `data` atomically. `prepare` is done to the temp file before it is written
 * (setup gives it its owner there); `beforeRename` may still refuse, by throwing, as the last step
 * before the rename. Throws WriteStopped, with nothing changed, when `guard` is aborted before the
 * rename.
 */
export async function replaceFile(
  path: string,
  data: string,
  mode: number,
  guard: WriteGuard,
  {
    prepare,
    beforeRename,
  }: { prepare: (temp: FileHandle) => Promise<void>; beforeRename: () => Promise<void> },
): Promise<void> {
  heed(guard);
  const folder = dirname(path);
  await nodeFs().mkdir(folder, { recursive: true, mode: FOLDER_MODE });
  const temp = tempNameFor(path);
  const untrack = guard.track(temp);
  try {
    const handle = await nodeFs().open(temp, 'wx', mode);
    try {
      // Always: under a umask stricter than the mode (0277, say), the open alone would give less.
      await handle.chmod(mode);
      await prepare(handle);
      const bytes = Buffer.from(data);
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
        heed(guard);
        const end = Math.min(at + CHUNK_BYTES, bytes.length);
        let written = at;
        while (written < end)
          written += (await handle.write(bytes, written, end - written, written)).bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    heed(guard);
    await beforeRename();
    await nodeFs().rename(temp, path);
  } catch (error) {
    await nodeFs().rm(temp, { force: true });
    throw error;
  } finally {
    untrack();
  }
  await fsyncFolder(folder);
}

/**
 * Copies `from` to `to`, which must not exist yet (EEXIST otherwise), whole or not at all: the copy
 * is made under a temp name and linked into place once complete. `prepare` sets its mode and owner.
 */
export async function copyWhole(
  from: string,
  to: string,
  guard: WriteGuard,
  prepare: (path: string) => Promise<void>,
): Promise<void> {
  heed(guard);
  const temp = tempNameFor(to);
  const untrack = guard.track(temp);
  try {
    await nodeFs().copyFile(from, temp, constants.COPYFILE_EXCL);
    await prepare(temp);
    heed(guard);
    await nodeFs().link(temp, to);
  } finally {
    await nodeFs().rm(temp, { force: true });
    untrack();
  }
}

/** `.<file>[.<stamp>.bak].<pid>.<hex>.tmp`: the temp files of a config and of its backups. */
function leftoverPattern(path: string): RegExp {
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\.${name}(?:\\.\\d{8}-\\d{6}(?:-\\d+)?\\.bak)?\\.(\\d+)\\.[0-9a-f]{8}\\.tmp$`);
}

/** Whether process `pid` is running (one of another user counts too). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The temp files beside `path` that a setup no longer running left behind: regular files only,
 * named as ours are. A setup still running (its pid alive, ours aside) is left to finish.
 */
export async function findLeftovers(path: string): Promise<string[]> {
  const pattern = leftoverPattern(path);
  let names: string[];
  try {
    names = await nodeFs().readdir(dirname(path));
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || (pid !== process.pid && isRunning(pid))) continue;
    const leftover = join(dirname(path), name);
    try {
      if ((await nodeFs().lstat(leftover)).isFile()) found.push(leftover);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
