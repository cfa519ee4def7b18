/**
 * What `check` could not read, named: a path given that is not there (or is not a file or folder),
 * a folder it could not list, a file it could not open or read. A run with any of them, or with no
 * file found at all, did not check the code it was asked to check, and fails (exit 2) unless the
 * user said to allow it (`--allow-unread`): a CI gate must never pass a checkout it could not read.
 */

import type { Stats } from 'node:fs';
import { describeFileError } from '../describe-error.js';
import { ConfigError } from '../errors.js';
import { nodeFs } from '../lazy-node.js';
import { echoPath } from '../text/redact.js';

/** Unread paths named in a report; past them, only counted (a tree of 100,000 unreadable files). */
export const MAX_UNREAD_NAMED = 20;

export interface UnreadPath {
  /** As the report shows paths: relative paths stay relative. */
  path: string;
  /** Shown as "<path>: <reason>", e.g. "permission denied (EACCES)", "does not exist". */
  reason: string;
}

export interface UnreadCounts {
  unreadable: number;
  /** The first MAX_UNREAD_NAMED of them, in walk order. */
  unread: UnreadPath[];
}

export function noteUnread(counts: UnreadCounts, path: string, reason: string): void {
  counts.unreadable++;
  if (counts.unread.length < MAX_UNREAD_NAMED) counts.unread.push({ path, reason });
}

/** A failed open, read or listing, by its code, in words: "permission denied (EACCES)". */
export function unreadReason(code: string): string {
  return describeFileError(Object.assign(new Error(code), { code })).reason;
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'neither';
}

/**
 * What a path given on the command line is, links followed: a folder, a file, or why it cannot be
 * checked. `-` is a name like any other: standard input is not read (a pipe has no paths to report).
 */
export async function pathArgument(path: string): Promise<{ kind: 'folder' | 'file' } | { problem: string }> {
  let info: Stats;
  try {
    info = await nodeFs().stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return {
        problem:
          path === '-'
            ? 'does not exist (standard input is not read: name the files and folders to check)'
            : 'does not exist',
      };
    }
    return { problem: unreadReason(code ?? 'EIO') };
  }
  if (info.isDirectory()) return { kind: 'folder' };
  if (info.isFile()) return { kind: 'file' };
  return { problem: `not a file or folder (${kindOf(info)})` };
}

const listed = (unread: readonly UnreadPath[]) =>
  unread.map(({ path, reason }) => `  ${echoPath(path)}: ${reason}`).join('\n');

/**
 * Refuses the paths given when one cannot be checked (missing, misspelt, `-`, a FIFO): asked before
 * the service is, so that a mistake costs nothing. Not when the user allows unread paths.
 */
export async function refuseUnusablePaths(paths: readonly string[]): Promise<void> {
  const unusable: UnreadPath[] = [];
  for (const path of paths) {
    const argument = await pathArgument(path);
    if ('problem' in argument) unusable.push({ path, reason: argument.problem });
  }
  if (!unusable.length) return;
  throw new ConfigError(
    `check cannot read ${unusable.length === 1 ? 'a path' : `${unusable.length} paths`} it was given:\n${listed(unusable)}\nName files and folders that exist (standard input is not read), or pass --allow-unread to check the others.`,
    'paths',
  );
}

/**
 * Why a finished scan did not check what it was asked to, for the message after its report: files
 * or folders it could not read, or no file found at all. Undefined when it read what it found.
 */
export function unreadVerdict(
  counts: UnreadCounts & { scanned: number; tooLarge: number; binary: number },
  paths: readonly string[],
): string | undefined {
  if (counts.unreadable) {
    const more = counts.unreadable - counts.unread.length;
    return (
      `check could not read ${counts.unreadable} ${counts.unreadable === 1 ? 'file or folder' : 'files or folders'}, so it fails rather than pass code it did not read:\n` +
      `${listed(counts.unread)}${more > 0 ? `\n  … and ${more} more` : ''}\n` +
      'Run it as a user who can read them, leave them out (.model-feed-ignore), or pass --allow-unread to accept a check without them.'
    );
  }
  if (counts.scanned + counts.tooLarge + counts.binary === 0) {
    return (
      `check found no file to scan under ${paths.map((path) => echoPath(path)).join(', ')}: there is none, or every one is ignored (.gitignore, .model-feed-ignore). ` +
      'Name the files and folders to check, or pass --allow-unread to accept an empty check.'
    );
  }
  return undefined;
}
