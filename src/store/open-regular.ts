/**
 * Opens a file of ours for reading only when it is a regular file of this user's. A FIFO at a state,
 * lock or cache path would otherwise block the open itself: a libuv thread stuck in open() keeps the
 * process from exiting, even on SIGTERM. So the file is opened without blocking (O_NONBLOCK, which a
 * regular file ignores) and judged on the descriptor (fstat): judging the path first and opening it
 * after would leave a moment in which it could be swapped.
 */

import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { nodeFs } from '../lazy-node.js';

export interface OpenRules {
  /**
   * Follow a symbolic link to a regular file. Only for a path the user chose (`--state`): a link at
   * one of our own names was put there by someone else. @default false
   */
  followLink?: boolean;
  /**
   * Read another user's file too: for files the user points us at to read and not to trust, as
   * `check` reads a source tree (a checkout may belong to another uid). @default false
   */
  anyOwner?: boolean;
}

export type Opened<T> =
  | { kind: 'file'; file: T; size: number }
  | { kind: 'missing' }
  /** `reason` completes "<path> …", e.g. "is not a regular file (it is a FIFO)". */
  | { kind: 'refused'; reason: string };

function flags({ followLink = false }: OpenRules): number {
  // Windows has neither flag (nor FIFOs at a path): there they are 0.
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (followLink ? 0 : (constants.O_NOFOLLOW ?? 0));
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a folder';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

/** Why a descriptor's file is not a regular file, or undefined when it is. */
export function notRegular(info: Stats): string | undefined {
  return info.isFile() ? undefined : `is not a regular file (it is ${kindOf(info)})`;
}

/** Why a descriptor's file is not one to read, or undefined when it is. */
export function refusal(info: Stats, uid = process.getuid?.()): string | undefined {
  if (!info.isFile()) return notRegular(info);
  // Someone else's file in a folder we read (a shared one, say) could say anything: a state file
  // planted with a huge cursor would silence every delivery. Where there are no uids (Windows), no check.
  if (uid !== undefined && info.uid !== uid) {
    return `belongs to another user (uid ${info.uid}), not to this one (uid ${uid})`;
  }
  return undefined;
}

/** An open() failure that says what is at the path: undefined for any other failure. */
function openFailure(code: string | undefined, { followLink = false }: OpenRules): Opened<never> | undefined {
  if (code === 'ENOENT') return { kind: 'missing' };
  // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD). Following links, ELOOP is a loop
  // of them: an error of its own, left to the caller.
  if (!followLink && (code === 'ELOOP' || code === 'EMLINK'))
    return { kind: 'refused', reason: 'is a symbolic link' };
  // A socket cannot be opened at all.
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return { kind: 'refused', reason: 'is not a regular file' };
  return undefined;
}

export async function openRegular(path: string, rules: OpenRules = {}): Promise<Opened<FileHandle>> {
  let handle: FileHandle;
  try {
    handle = await nodeFs().open(path, flags(rules));
  } catch (error) {
    const known = openFailure((error as NodeJS.ErrnoException).code, rules);
    if (known) return known;
    throw error;
  }
  try {
    const info = await handle.stat();
    // Not `refusal(info, undefined)`: an undefined argument takes the default, this user's uid.
    const reason = rules.anyOwner ? notRegular(info) : refusal(info);
    if (reason === undefined) return { kind: 'file', file: handle, size: info.size };
    await handle.close();
    return { kind: 'refused', reason };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** The same, synchronously: for a read asked before every request, where a thread-pool trip costs more. */
export function openRegularSync(path: string, rules: OpenRules = {}): Opened<number> {
  // Missing is the usual answer here (no 429 seen, nothing cached yet), and a failed open builds an
  // exception with its stack: 6 µs against lstat's 0.6 µs (measured, Node 20), about 4 % of a tool
  // call's own work in a CPU profile. The open below still judges whatever is there.
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return { kind: 'missing' };
  let fd: number;
  try {
    fd = openSync(path, flags(rules));
  } catch (error) {
    const known = openFailure((error as NodeJS.ErrnoException).code, rules);
    if (known) return known;
    throw error;
  }
  try {
    const info = fstatSync(fd);
    const reason = rules.anyOwner ? notRegular(info) : refusal(info);
    if (reason === undefined) return { kind: 'file', file: fd, size: info.size };
    closeSync(fd);
    return { kind: 'refused', reason };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * At most `limit + 1` bytes from the start: one byte more than allowed tells the caller the file is
 * too large without reading all of it.
 */
export async function readHead(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit + 1);
  let filled = 0;
  // Bounded: every turn reads at least one byte or ends.
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

export function readHeadSync(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
