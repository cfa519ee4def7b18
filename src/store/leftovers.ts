/**
 * Temp files of ours that a writer killed mid-write leaves behind: writeFileAtomic's
 * `.<name>.<pid>.<hex>.tmp` and the lock's `<name>.lock.<pid>.<hex>.tmp`. The next writer of the
 * same file removes them, so none outlives the process that made it for long.
 */

import { basename, dirname, join } from 'node:path';
import { nodeFs } from '../lazy-node.js';
import { processAlive } from './lock.js';

/** A write takes milliseconds: a temp file this old has no writer left, whatever its pid says. */
export const STALE_TEMP_MS = 10 * 60_000;
/**
 * Without a lock (the disk cache), a temp file named after a process that is gone is left alone this
 * long all the same: a writer in another container (another pid space) sharing the folder may still
 * be renaming it.
 */
const DEAD_WRITER_GRACE_MS = 60_000;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pid in the name of a temp file made for `file` (its base name), or undefined when it is none. */
export function tempFileWriter(name: string, file: string): number | undefined {
  const found = new RegExp(
    `^(?:\\.${escaped(file)}|${escaped(file)}\\.lock)\\.(\\d+)\\.[0-9a-f]+\\.tmp$`,
  ).exec(name);
  return found ? Number(found[1]) : undefined;
}

/**
 * Whether a temp file by `pid`, last written at `mtimeMs`, has no writer left. `graceMs`: how long
 * one of a process that is gone is kept all the same. @default DEAD_WRITER_GRACE_MS
 */
export function isLeftover(
  pid: number,
  mtimeMs: number,
  now: number,
  graceMs = DEAD_WRITER_GRACE_MS,
): boolean {
  const age = now - mtimeMs;
  return age > STALE_TEMP_MS || (age >= graceMs && pid !== process.pid && !processAlive(pid));
}

/**
 * Removes what killed writers of `path` left beside it; best effort, as they harm nothing but space.
 * For the holder of the file's lock only: no other writer can be at work, so a temp file of a process
 * that is gone is removed at once.
 */
export async function removeLeftovers(path: string, now = Date.now()): Promise<void> {
  const folder = dirname(path);
  const file = basename(path);
  const names = await nodeFs()
    .readdir(folder)
    .catch(() => [] as string[]);
  for (const name of names) {
    const pid = tempFileWriter(name, file);
    if (pid === undefined) continue;
    const info = await nodeFs()
      .lstat(join(folder, name))
      .catch(() => undefined);
    if (info?.isFile() && isLeftover(pid, info.mtimeMs, now, 0))
      await nodeFs()
        .rm(join(folder, name), { force: true })
        .catch(() => {});
  }
}
