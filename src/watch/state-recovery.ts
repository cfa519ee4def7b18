/**
 * What to tell a user whose state file is damaged (emptied, cut short, overwritten, a folder in its
 * place): the last cursor that can still be read, from what is left of the file or from its newest
 * backup, and the command that carries on from it. The usual way out, `--reset` with its default
 * `--since now`, would skip every change published since the last save.
 */

import { basename, dirname, join } from 'node:path';
import { nodeFs } from '../lazy-node.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { echoPath } from '../text/redact.js';

/** A backup is a state file (a few hundred bytes): more is not one. */
const MAX_BACKUP_BYTES = 64 * 1024;

/** The cursor in a state file's text, even a cut or damaged one: only a number that ends whole. */
export function cursorIn(text: string): number | undefined {
  const found = /"cursor"\s*:\s*(\d{1,16})\s*[,}\n]/.exec(text);
  const cursor = found ? Number(found[1]) : Number.NaN;
  return Number.isSafeInteger(cursor) ? cursor : undefined;
}

/** The newest `<state>.<UTC time>.bak` beside the state file that holds a cursor, if any. */
async function newestBackup(path: string): Promise<{ path: string; cursor: number } | undefined> {
  const prefix = `${basename(path)}.`;
  const names = await nodeFs()
    .readdir(dirname(path))
    .catch(() => [] as string[]);
  // The stamp sorts by time (20261125T193302Z, then -2, -3… within one second).
  const backups = names.filter((name) => name.startsWith(prefix) && name.endsWith('.bak')).sort();
  for (const name of backups.reverse()) {
    const backup = join(dirname(path), name);
    const opened = await openRegular(backup).catch(() => undefined);
    if (opened?.kind !== 'file') continue;
    let text: string;
    try {
      text = (await readHead(opened.file, MAX_BACKUP_BYTES)).toString('utf8');
    } finally {
      await opened.file.close();
    }
    const cursor = cursorIn(text);
    if (cursor !== undefined) return { path: backup, cursor };
  }
  return undefined;
}

/**
 * The sentences that follow "<state> is not a watch state file": where the last cursor is, and how
 * to carry on from it without a gap. `text`: what is left of the file, when it could be read.
 */
export async function recoveryAdvice(path: string, text: string | undefined): Promise<string> {
  const inFile = text === undefined ? undefined : cursorIn(text);
  const backup = inFile === undefined ? await newestBackup(path) : undefined;
  const cursor = inFile ?? backup?.cursor;
  const skips =
    '--reset alone (or with --since now) would start after the newest change, skipping every change published since the last save';
  if (cursor === undefined) {
    return `Its last cursor is lost: no cursor can be read from it, nor from a backup beside it. To carry on without a gap, run the same watch command with --reset --since <the change time of the last change you received> added (--since 0 delivers every change again: deduplicate on deliveryId); ${skips}`;
  }
  const from =
    backup === undefined ? 'what is left of it' : `its backup ${echoPath(backup.path)}, an older save`;
  return `The last cursor that can still be read is ${cursor}, from ${from}. To carry on from there without missing a change, run the same watch command with --reset --since ${cursor} added (the damaged file is kept as a backup); ${skips}`;
}
