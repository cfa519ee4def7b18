/**
 * How setup replaces a client's file and makes its backup: whole or not at all, and never leaving a
 * temp file behind, since a config's temp file holds the key. Through the store's atomic write (temp
 * file beside the target, fsync, rename, fsync of the folder), with two more duties: a stop signal
 * is heeded between steps, the temp file removed and the old file left as it was (once renamed, the
 * change stands and is reported); and temp files that a run killed outright (`kill -9`) left
 * behind are found by their name, `.<file>.<pid>.<hex>.tmp`, and removed by the next run.
 */

import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeFs } from '../lazy-node.js';
import { tempNameFor, writeFileAtomic } from '../store/atomic-file.js';
import { processAlive } from '../store/lock.js';

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

function heed(guard: WriteGuard): void {
  if (guard.signal.aborted) throw new WriteStopped();
}

/**
 * Replaces `path` with `data` atomically (the store's write). `prepare` is done to the temp file
 * before it is written (setup gives it its owner there); `beforeRename` may still refuse, by
 * throwing, as the last step before the rename. Throws WriteStopped, with nothing changed, when
 * `guard` is aborted before the rename.
 */
export function replaceFile(
  path: string,
  data: string,
  mode: number,
  guard: WriteGuard,
  {
    prepare,
    beforeRename,
  }: { prepare: (temp: FileHandle) => Promise<void>; beforeRename: () => Promise<void> },
): Promise<void> {
  return writeFileAtomic(path, data, {
    mode,
    prepare,
    beforeRename,
    checkpoint: () => heed(guard),
    onTemp: (temp) => guard.track(temp),
  });
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
    if (!Number.isSafeInteger(pid) || (pid !== process.pid && processAlive(pid))) continue;
    const leftover = join(dirname(path), name);
    try {
      if ((await nodeFs().lstat(leftover)).isFile()) found.push(leftover);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
