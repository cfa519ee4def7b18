/**
 * A file of the tree `check` reads, as bytes: read whole if it is a regular text file within the
 * size limit, else why not. Opened without blocking and judged on its descriptor
 * (store/open-regular.ts: a FIFO is refused, not waited on); anyone's file, since a tree is only
 * read. Synchronous: each worker thread reads one file after another, with nothing else to wait for,
 * and a read through the thread pool costs four trips where this costs four system calls.
 */

import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../store/open-regular.js';
import { openedWithin } from './in-tree.js';

/** Git's rule: a NUL byte in the first 8,000 bytes makes a file binary. */
const BINARY_PROBE_BYTES = 8000;
/**
 * Files up to this size are read into one buffer kept for the next file, so that reading 20,000
 * files of 10 KB allocates nothing; a larger file gets a buffer of its own, freed with it.
 */
const SCRATCH_BYTES = 1024 * 1024;

export type ReadOutcome =
  | { bytes: Buffer }
  | { skipped: 'tooLarge' | 'binary' | 'other' }
  /** The file is there but could not be read: `code` says why (EACCES, EIO…). */
  | { skipped: 'unreadable'; code: string };

/** A failure to open or read: a file gone meanwhile is not there to read; any other is unreadable. */
function failed(error: unknown): ReadOutcome {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? { skipped: 'other' } : { skipped: 'unreadable', code: code ?? 'EIO' };
}

let scratch: Buffer | undefined;

/**
 * The file's bytes, if it is a regular file of at most `limit` bytes with no NUL byte in its first
 * 8,000, and, given `within` (a real path), inside that folder once opened (in-tree.ts: a folder on
 * its path swapped for a link out of the tree is not followed). The bytes may be this module's
 * scratch buffer: valid until the next call.
 */
export function readTextFile(path: string, limit: number, within?: string): ReadOutcome {
  let opened: ReturnType<typeof openRegularSync>;
  try {
    opened = openRegularSync(path, { followLink: true, anyOwner: true });
  } catch (error) {
    return failed(error);
  }
  if (opened.kind !== 'file') return { skipped: 'other' };
  try {
    if (within !== undefined && !openedWithin(opened.file, within)) return { skipped: 'other' };
    if (opened.size > limit) return { skipped: 'tooLarge' };
    // Up to the size it had, plus a byte: a file that grew past the limit meanwhile is too large.
    const want = Math.min(opened.size, limit) + 1;
    let buffer: Buffer;
    if (want <= SCRATCH_BYTES) {
      scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
      buffer = scratch;
    } else {
      buffer = Buffer.allocUnsafe(want);
    }
    let filled = 0;
    // Bounded: every turn reads at least one byte or ends.
    while (filled < want) {
      const read = readSync(opened.file, buffer, filled, want - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    if (filled > limit) return { skipped: 'tooLarge' };
    const bytes = buffer.subarray(0, filled);
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { skipped: 'binary' };
    return { bytes };
  } catch (error) {
    return failed(error);
  } finally {
    closeSync(opened.file);
  }
}
