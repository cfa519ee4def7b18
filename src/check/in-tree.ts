/**
 * Whether what was opened is inside the tree being walked. A folder of the tree can be swapped for a
 * link out of it between the moment the walk lists it and the moment a file below it is opened, and
 * an open by path follows that link (O_NOFOLLOW guards only the last part of a path). So what is
 * judged is the descriptor, after the open: on Linux, /proc/self/fd/<fd> names the file it holds.
 * Where there is no /proc (macOS, Windows) nothing can be said, and the walk relies on its checks
 * of each link it meets.
 */

import { readlinkSync } from 'node:fs';
import { sep } from 'node:path';

/** The real path of the file an open descriptor holds, or undefined where that cannot be known. */
export function openedPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Whether a real path is `root` (a real path) or below it. */
export function isWithin(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** Whether the descriptor's file is inside `root`; true where that cannot be known. */
export function openedWithin(fd: number, root: string): boolean {
  const real = openedPath(fd);
  return real === undefined || isWithin(real, root);
}
