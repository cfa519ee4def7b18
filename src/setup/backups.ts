/**
 * The backups `setup` made of a config (write.ts names them `<file>.<YYYYMMDD-HHMMSS>[-n].bak`,
 * beside it), as `--remove` needs them: the ones that still hold our entry (and so the key) are
 * deleted, and the newest one without it tells the mode the file had before setup added the entry.
 * Only regular files with exactly that name are read, without following a symlink (the name is
 * ours, not the user's), within the same size bound as a config.
 */

import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { nodeFs } from '../lazy-node.js';
import { readRegularFile } from './write.js';

export interface Backup {
  path: string;
  text: string;
  mode: number;
}

/** Names the backups of `file` may have; the stamp and the attempt number order them. */
function backupPattern(file: string): RegExp {
  const name = basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${name}\\.(\\d{8}-\\d{6})(?:-(\\d+))?\\.bak$`);
}

/**
 * The backups of `file`, oldest first. A name that matches but is not a regular file (a link, a
 * folder) is not one of ours and is skipped, as is one that cannot be read.
 */
export async function findBackups(file: string): Promise<Backup[]> {
  const pattern = backupPattern(file);
  let names: string[];
  try {
    names = await nodeFs().readdir(dirname(file));
  } catch {
    return [];
  }
  const ordered = names
    .map((name) => ({ name, match: pattern.exec(name) }))
    .filter((n): n is { name: string; match: RegExpExecArray } => n.match !== null)
    .sort(
      (a, b) => a.match[1]!.localeCompare(b.match[1]!) || Number(a.match[2] ?? 0) - Number(b.match[2] ?? 0),
    );
  const found: Backup[] = [];
  for (const { name } of ordered) {
    const path = join(dirname(file), name);
    let read: { raw: string; info: Stats };
    try {
      read = await readRegularFile(path, { follow: false });
    } catch {
      continue;
    }
    found.push({ path, text: read.raw.replace(/^\uFEFF/, ''), mode: read.info.mode & 0o777 });
  }
  return found;
}

export interface BackupVerdict {
  /** Backups that hold our entry: --remove deletes them. */
  holding: Backup[];
  /** The mode of the newest backup without our entry: the file's mode before setup added it. */
  modeBefore: number | undefined;
}

/** Sorts the backups by `holdsEntry` (pure). */
export function judgeBackups(
  backups: readonly Backup[],
  holdsEntry: (text: string) => boolean,
): BackupVerdict {
  const holding = backups.filter((b) => holdsEntry(b.text));
  const without = backups.filter((b) => !holding.includes(b));
  return { holding, modeBefore: without.at(-1)?.mode };
}
