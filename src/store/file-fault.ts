/**
 * A failed file operation as the runner reports it: Node's error (which names a temp file, or the
 * whole of a 100 KB path) becomes a FileSystemError naming the user's file and where it came from.
 */

import { FileSystemError } from '../errors.js';

/**
 * `error` as a FileSystemError when it is a file-system failure (it has an errno code), else as it
 * is. `action` ends "cannot …", `setting` names where `path` came from.
 */
export function fileFault(error: unknown, action: string, path: string, setting: string): unknown {
  if (error instanceof FileSystemError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return error;
  return new FileSystemError(action, path, code, setting);
}
