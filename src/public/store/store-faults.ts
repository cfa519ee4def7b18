/**
 * How the files store reports what the disk refuses: as the FileSystemError every other file of
 * ours gives, naming the user's file and the setting that moves it (the state folder), never
 * Node's raw ENOENT or EACCES.
 */

import { FileSystemError } from '../../errors.js';
import { fileFault } from '../../store/file-fault.js';

/** The store lives under the state folder, which this variable moves. */
export const STORE_SETTING = 'XDG_STATE_HOME';

/** `error` as a FileSystemError when the disk gave it; an abort or a bug passes as it is. */
export function storeFault(error: unknown, action: string, path: string): unknown {
  return fileFault(error, action, path, STORE_SETTING);
}

/**
 * A file of the store that is not a regular file of this user's (a FIFO, a link, another user's):
 * read it and a FIFO would block, follow it and a link could point anywhere. There is no errno for
 * "not a regular file" on Linux; EFTYPE is BSD's name for it.
 */
export function refusedFile(path: string, reason: string): FileSystemError {
  return new FileSystemError(
    `use the public store's file, which ${reason} (only a regular file of this user's will do: move it away),`,
    path,
    'EFTYPE',
    STORE_SETTING,
  );
}
