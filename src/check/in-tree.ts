/**
 * Whether what was opened is inside the tree being walked. A folder of the tree can be swapped for a
 * link out of it between the moment the walk lists it and the moment a file below it is opened, and
 * an open by path follows that link (O_NOFOLLOW guards only the last part of a path). So what is
 * judged is the descriptor, after the open: on Linux, /proc/self/fd/<fd> names the file it holds.
 * Where there is no /proc (macOS, Windows) nothing can be said, and the walk relies on its checks
 * of each link it meets.
 */

import { type Dirent, readlinkSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { sep } from 'node:path';
import { nodeFs } from '../lazy-node.js';

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

/**
 * A folder's entries, listed through a descriptor that is known to be inside the tree: opened
 * without following a link (a folder swapped for one since it was seen is refused), judged on the
 * descriptor (`openedPath`), and listed through it where /proc shows it. `outside` when it is not the
 * folder the walk saw.
 */
export async function listFolder(path: string, realRoot: string): Promise<Dirent[] | 'outside'> {
  const { constants } = process.getBuiltinModule('node:fs');
  const fs = nodeFs();
  let handle: FileHandle;
  try {
    handle = await fs.open(
      path,
      constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A link now (ELOOP), or a file (ENOTDIR): no longer the folder the walk saw.
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK') return 'outside';
    throw error;
  }
  try {
    const real = openedPath(handle.fd);
    if (real === undefined) return await fs.readdir(path, { withFileTypes: true });
    if (!isWithin(real, realRoot)) return 'outside';
    return await fs.readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
  } finally {
    await handle.close();
  }
}
