/**
 * Files written in the user's folders (watch state, atom feed, cache): whole or not at all. The
 * data goes to a temp file beside the target (same filesystem, so rename is atomic), is fsynced,
 * renamed over the target, and the folder is fsynced so the rename itself survives a power cut.
 * Files are user-only (0600) and their folders 0700 when we create them.
 */

import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto, nodeFs } from '../lazy-node.js';

export const FILE_MODE = 0o600;
export const FOLDER_MODE = 0o700;

/**
 * Creates the folder (and its parents) user-only; an existing folder is left as it is. Not mkdir's
 * own `recursive`: on Node 20 it spun at full CPU forever on a folder that cannot be made (under
 * /proc, where mkdir says ENOENT although the parent exists). Here each level is tried at most twice.
 */
export async function ensureFolder(folder: string): Promise<void> {
  const made = await makeFolder(folder);
  if (made !== 'ENOENT') return;
  const parent = dirname(folder);
  if (parent !== folder) await ensureFolder(parent);
  if ((await makeFolder(folder)) === 'ENOENT') {
    throw Object.assign(new Error(`cannot make the folder ${folder}`), { code: 'ENOENT', path: folder });
  }
}

/** One mkdir: done (or a folder already there), or ENOENT for a missing parent; else it throws. */
async function makeFolder(folder: string): Promise<'done' | 'ENOENT'> {
  try {
    await nodeFs().mkdir(folder, { mode: FOLDER_MODE });
    return 'done';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'ENOENT';
    // A file in the way is EEXIST too: only a folder (or a link to one) will do.
    if (code === 'EEXIST' && (await nodeFs().stat(folder)).isDirectory()) return 'done';
    throw error;
  }
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

/** The temp file beside `path` that a write of it goes through: `.<name>.<pid>.<hex>.tmp`. */
export function tempNameFor(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`,
  );
}

/** Small enough that a `checkpoint` between parts is heeded within a moment, even on a slow disk. */
const PART_BYTES = 4 * 1024 * 1024;

export interface AtomicWriteOptions {
  /** The new file's permissions, set exactly whatever the umask. @default 0600 */
  mode?: number;
  /**
   * Done to the temp file before it is written and renamed (setup gives it its owner there): the
   * file is never seen unprepared, and a failure leaves the old file in place.
   */
  prepare?: (temp: FileHandle) => Promise<void>;
  /** The last word before the rename: throwing refuses it, the old file left in place. */
  beforeRename?: () => Promise<void>;
  /** Called between steps and parts; throwing stops the write (a stop signal), nothing changed. */
  checkpoint?: () => void;
  /** Told the temp file's name while it exists (to remove it if the process must end at once). */
  onTemp?: (temp: string) => () => void;
}

/** Replaces `path` with `data` atomically: readers see the old content or the new, never a mix. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  { mode = FILE_MODE, prepare, beforeRename, checkpoint, onTemp }: AtomicWriteOptions = {},
): Promise<void> {
  checkpoint?.();
  const folder = dirname(path);
  await ensureFolder(folder);
  const temp = tempNameFor(path);
  const forget = onTemp?.(temp);
  try {
    const handle = await nodeFs().open(temp, 'wx', mode);
    try {
      // Always: under a umask stricter than the mode (0277, say), the open alone would give less.
      await handle.chmod(mode);
      await prepare?.(handle);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) {
        checkpoint?.();
        const end = Math.min(at + PART_BYTES, bytes.length);
        while (at < end) at += (await handle.write(bytes, at, end - at, at)).bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    checkpoint?.();
    await beforeRename?.();
    await nodeFs().rename(temp, path);
  } catch (error) {
    await nodeFs().rm(temp, { force: true });
    throw error;
  } finally {
    forget?.();
  }
  await fsyncFolder(folder);
}

/**
 * The mode a rewrite of `path` keeps: the file's own, or for a new file the umask's default (0666
 * less the umask), as an editor would give it. For files meant to be shared or served (an Atom
 * feed, a baseline committed with the code), never for ours that may hold a secret (FILE_MODE).
 */
export async function modeToKeep(path: string): Promise<number> {
  try {
    return (await nodeFs().stat(path)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Reading the umask sets it twice (DEP0139), a race only with threads that create files, and
  // neither a watcher nor check runs any. The alternative, a probe file, costs a file per write.
  return 0o666 & ~process.umask();
}
