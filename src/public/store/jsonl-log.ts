/**
 * The store's append-only logs, one JSON value a line. A log is only ever read up to the length
 * the head commits, and a writer first cuts it back to that length: bytes past it are the tail of
 * a writer killed before its head was written, never part of the store.
 */

import { constants, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { nodeFs } from '../../lazy-node.js';
import { FILE_MODE } from '../../store/atomic-file.js';
import { refusal } from '../../store/open-regular.js';

/** An event's line is a few KB; a megabyte is a line nobody of ours wrote. */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Years of hourly polls of today's catalog stay under 50 MB: past this, something else wrote it. */
export const MAX_LOG_BYTES = 512 * 1024 * 1024;
/** Read in parts, so a first read of a long log never holds all of it at once. */
const PART_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface LinesRead {
  /** The offset just past the last whole line read: where the next read starts. */
  readonly end: number;
  /** Lines too long, or that `take` refused. */
  readonly skipped: number;
}

/**
 * Passes each whole line of `handle` between `from` and `to` to `take`, which returns false for a
 * line it cannot use. A last line without its newline is left for a later read.
 */
export async function readLines(
  handle: FileHandle,
  from: number,
  to: number,
  take: (line: string) => boolean,
  signal?: AbortSignal,
): Promise<LinesRead> {
  const part = Buffer.alloc(Math.max(0, Math.min(PART_BYTES, to - from)));
  let carry = Buffer.alloc(0);
  let overlong = false;
  let end = from;
  let skipped = 0;
  for (let position = from; position < to; ) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(part, 0, Math.min(part.length, to - position), position);
    // Shorter than the head says (cut by hand): what is there is all there is.
    if (bytesRead === 0) break;
    const data = part.subarray(0, bytesRead);
    let lineStart = 0;
    for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, lineStart)) {
      const piece = data.subarray(lineStart, newline);
      if (overlong || carry.length + piece.length > MAX_LINE_BYTES) skipped++;
      else if (!take(Buffer.concat([carry, piece]).toString('utf8'))) skipped++;
      carry = Buffer.alloc(0);
      overlong = false;
      lineStart = newline + 1;
      end = position + lineStart;
    }
    const rest = data.subarray(lineStart);
    if (overlong || carry.length + rest.length > MAX_LINE_BYTES) {
      // Skipped up to its newline, whenever that comes: never held whole.
      overlong = true;
      carry = Buffer.alloc(0);
    } else {
      // A copy: `part` is read into again.
      carry = Buffer.concat([carry, rest]);
    }
    position += bytesRead;
  }
  return { end, skipped };
}

export type OpenedForAppend =
  | { kind: 'file'; file: FileHandle; size: number }
  | { kind: 'refused'; reason: string };

/**
 * Opens (creating it, 0600) a log to append to, when it is a regular file of this user's: never
 * through a link (O_NOFOLLOW), and never blocking on a FIFO (O_NONBLOCK, which a file ignores).
 */
export async function openForAppend(path: string): Promise<OpenedForAppend> {
  const flags =
    constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let handle: FileHandle;
  try {
    handle = await nodeFs().open(path, flags, FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') return { kind: 'refused', reason: 'is a symbolic link' };
    if (code === 'ENXIO' || code === 'EOPNOTSUPP')
      return { kind: 'refused', reason: 'is not a regular file' };
    throw error;
  }
  let info: Stats;
  try {
    info = await handle.stat();
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  const reason = refusal(info);
  if (reason === undefined) return { kind: 'file', file: handle, size: info.size };
  await handle.close();
  return { kind: 'refused', reason };
}

/**
 * Writes `lines` after the committed `length` of an open log, cut back to it first, and syncs.
 * A log shorter than committed (cut by hand) takes the lines after what is left, on a line of their
 * own. Returns the new committed length and whether the log was found shorter.
 */
export async function appendAt(
  handle: FileHandle,
  size: number,
  length: number,
  lines: string,
): Promise<{ length: number; damaged: boolean }> {
  let at = length;
  let data = Buffer.from(lines);
  const damaged = size < length;
  if (damaged) {
    at = size;
    const last = Buffer.alloc(1);
    if (size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== NEWLINE) {
      // The cut line stays one line, refused by readers, instead of swallowing the first new one.
      data = Buffer.concat([Buffer.from('\n'), data]);
    }
  } else if (size > length) {
    await handle.truncate(length);
  }
  for (let written = 0; written < data.length; ) {
    written += (await handle.write(data, written, data.length - written, at + written)).bytesWritten;
  }
  await handle.sync();
  return { length: at + data.length, damaged };
}
