/**
 * The watcher's saved place: the cursor, and enough about the feed to recognise the file. Written
 * atomically after every accepted page; it never holds the key (the base URL is stored without
 * credentials, and the key is not part of anything stored).
 */

import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainChangeId } from '../api/page-glimpse.js';
import { FileSystemError, StateFileError } from '../errors.js';
import type { FeedFilters, SkippedChange } from '../feed/follower.js';
import { nodeCrypto, nodeFs } from '../lazy-node.js';
import { writeFileAtomic } from '../store/atomic-file.js';
import { fileFault } from '../store/file-fault.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { echoPath, echoValue } from '../text/redact.js';
import { oneLine } from '../text/terminal.js';
import { MAX_REMEMBERED, type RememberedChange, readRemembered } from './news.js';
import { recoveryAdvice } from './state-recovery.js';

export { StateFileError };

export interface WatchState {
  /** The `since` to send next. */
  cursor: number;
  /** The base URL this cursor belongs to. */
  service: string;
  filters: FeedFilters;
  /** Changes delivered with this state file, over all runs. */
  delivered: number;
  updatedAt: string;
  /**
   * The changes moved past unread at the user's `--skip`, oldest first, the last MAX_SKIPPED of
   * them. Absent until the first skip, so files written before it existed still load.
   */
  skipped?: SkippedRecord[];
  /**
   * The changes delivered lately, oldest first, at most MAX_REMEMBERED: what tells an update of one
   * of them from a new change. Absent in files written before it existed, which still load.
   */
  remembered?: RememberedChange[];
}

export interface SkippedRecord extends SkippedChange {
  /** When it was skipped (ISO). */
  at: string;
}

/** Skips kept in the file: a record of what was never delivered, not a log that grows forever. */
export const MAX_SKIPPED = 20;
/** A reason is the runner's own sentence; bounded all the same, as the file must stay small. */
const MAX_REASON_LENGTH = 300;

/** The state with one more skip recorded, the oldest dropped past MAX_SKIPPED. */
export function withSkip(state: WatchState, change: SkippedChange, at: string): WatchState {
  const reason = oneLine(change.reason).slice(0, MAX_REASON_LENGTH);
  const skipped = [...(state.skipped ?? []), { ...change, reason, at }].slice(-MAX_SKIPPED);
  return { ...state, skipped };
}

/** The skips of a file, leniently: an entry this version could not have written is left out. */
function readSkipped(value: unknown): SkippedRecord[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(
      (entry: Partial<SkippedRecord> | null): entry is SkippedRecord =>
        typeof entry?.id === 'string' &&
        isPlainChangeId(entry.id) &&
        Number.isSafeInteger(entry.changeTime) &&
        typeof entry.reason === 'string' &&
        typeof entry.at === 'string',
    )
    .slice(-MAX_SKIPPED)
    .map(({ id, changeTime, reason, at }) => ({ id, changeTime, reason, at }));
}

const STATE_VERSION = 1;
/** Where a state path comes from, for the fix in a message, unless the caller knows better. */
const STATE_SETTING = '--state';
/**
 * A state file is a cursor and the changes remembered: at most MAX_REMEMBERED entries of a bounded
 * size (news.ts), well under a megabyte; anything much larger is not ours.
 */
const MAX_STATE_BYTES = 2 * 1024 * 1024;

/** One file per base URL and filter set, so two watchers of different feeds never share a cursor. */
export function defaultStatePath(folder: string, baseUrl: string, filters: FeedFilters): string {
  return join(folder, `watch-${feedHash(baseUrl, filters)}.json`);
}

/** 16 hex digits naming a feed: the base URL and the filters, the model slug in any case. */
export function feedHash(baseUrl: string, filters: FeedFilters): string {
  const identity = JSON.stringify([baseUrl, filters.type ?? null, filters.model?.toLowerCase() ?? null]);
  return nodeCrypto().createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

/**
 * The state file opened for reading, or undefined when there is none; what cannot be read as state
 * (not a regular file of this user's, nor a link to one) is a StateFileError saying what to do.
 */
async function openState(path: string, setting: string): Promise<FileHandle | undefined> {
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    opened = await openRegular(path, { followLink: true });
  } catch (error) {
    const fault = fileFault(error, 'read the watch state file', path, setting);
    if (fault instanceof FileSystemError) throw fault;
    throw new StateFileError(`cannot read ${echoPath(path)}: ${(error as Error).message}`);
  }
  if (opened.kind === 'missing') return undefined;
  if (opened.kind === 'refused') {
    throw new StateFileError(
      `${path} ${opened.reason}. Move it away, or give another --state file. ${await recoveryAdvice(path, undefined)}`,
    );
  }
  return opened.file;
}

/**
 * The file's text, or undefined when there is none. Only a regular file of this user's is read: a
 * FIFO would block the process (even SIGTERM could not end it), and a file someone else planted
 * could hold a cursor that skips every change. A symbolic link is followed, to a file that passes
 * the same checks: `--state` is the user's own choice, and the default folder is user-only.
 */
async function readBounded(path: string, setting: string): Promise<string | undefined> {
  const file = await openState(path, setting);
  if (file === undefined) return undefined;
  try {
    const bytes = await readHead(file, MAX_STATE_BYTES);
    if (bytes.length > MAX_STATE_BYTES)
      throw new StateFileError(`${path} is too large to be a watch state file`);
    return bytes.toString('utf8');
  } finally {
    await file.close();
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The saved state, or undefined when there is none yet. A file that is not a state file is an
 * error, never silently replaced: guessing a cursor could skip changes or repeat them all.
 */
export async function readState(path: string, setting = STATE_SETTING): Promise<WatchState | undefined> {
  const text = await readBounded(path, setting);
  if (text === undefined) return undefined;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    const what = text === '' ? 'is empty' : 'is not JSON';
    throw new StateFileError(
      `${path} ${what}, so not a watch state file. ${await recoveryAdvice(path, text)}`,
    );
  }
  const cursor = value?.cursor;
  if (value?.version !== STATE_VERSION || !Number.isSafeInteger(cursor) || (cursor as number) < 0) {
    throw new StateFileError(
      `${path} is not a watch state file this version wrote. ${await recoveryAdvice(path, text)}`,
    );
  }
  const filters = (value.filters ?? {}) as Record<string, unknown>;
  return {
    cursor: cursor as number,
    service: optionalString(value.service) ?? '',
    filters: { type: optionalString(filters.type), model: optionalString(filters.model) },
    delivered: Number.isSafeInteger(value.delivered) ? (value.delivered as number) : 0,
    updatedAt: optionalString(value.updatedAt) ?? '',
    ...(value.skipped !== undefined && { skipped: readSkipped(value.skipped) ?? [] }),
    ...(value.remembered !== undefined && { remembered: readRemembered(value.remembered) }),
  };
}

/**
 * `--reset`: moves the state file aside, to `<path>.<UTC time>.bak` beside it, and returns that
 * name; undefined when there is no state file. The file is kept as it was, whatever it holds (a
 * cursor, another feed's, or no state at all). Only a file that could be read as state is moved
 * (a regular file of this user's, or a link to one): the rest is refused as reading refuses it.
 * The caller holds the lock, so no other watcher names a backup meanwhile. The next save fsyncs the
 * folder, which makes the move durable; a crash before it leaves the state file where it was.
 */
export async function backUpState(
  path: string,
  now: Date,
  setting = STATE_SETTING,
): Promise<string | undefined> {
  const file = await openState(path, setting);
  if (file === undefined) return undefined;
  await file.close();
  // 20261123T144802Z: sorts by time, and holds no character a file system refuses.
  const stamp = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
  for (let n = 1; ; n++) {
    const backup = `${path}.${stamp}${n === 1 ? '' : `-${n}`}.bak`;
    // Two resets within a second must not put one backup over another.
    if (await exists(backup)) continue;
    try {
      await nodeFs().rename(path, backup);
    } catch (error) {
      const fault = fileFault(error, 'move aside, as --reset asks, the watch state file', path, setting);
      if (fault instanceof FileSystemError) throw fault;
      throw new StateFileError(
        `cannot move ${echoPath(path)} to ${echoPath(backup)}: ${(error as Error).message}`,
      );
    }
    return backup;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await nodeFs().lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StateFileError(`cannot look at ${path}: ${(error as Error).message}`);
  }
}

/**
 * One remembered change as its line of the file. A remembered change is never modified (a newer
 * delivery replaces it), and the same hundreds are saved after every page of a drain: each is
 * written out once.
 */
const rememberedLines = new WeakMap<RememberedChange, string>();
function rememberedLine(change: RememberedChange): string {
  let line = rememberedLines.get(change);
  if (line === undefined) {
    line = `    ${JSON.stringify(change)}`;
    rememberedLines.set(change, line);
  }
  return line;
}

/**
 * The file's text: the state as indented JSON, and the remembered changes one per line, so the file
 * stays readable and a third of the size an indented list would take.
 */
function stateText(body: Record<string, unknown>, remembered: RememberedChange[] | undefined): string {
  const head = JSON.stringify(body, null, 2);
  if (remembered === undefined) return `${head}\n`;
  const lines = remembered.map(rememberedLine).join(',\n');
  const list = remembered.length === 0 ? '[]' : `[\n${lines}\n  ]`;
  return `${head.slice(0, -2)},\n  "remembered": ${list}\n}\n`;
}

/** Writes the state; a failure is a StateFileError, which stops the watcher (its cursor would drift). */
export async function saveState(path: string, state: WatchState, setting = STATE_SETTING): Promise<void> {
  const { cursor, service, filters, delivered, updatedAt, skipped, remembered } = state;
  const body = { version: STATE_VERSION, cursor, service, filters, delivered, updatedAt, skipped };
  try {
    await writeFileAtomic(path, stateText(body, remembered?.slice(-MAX_REMEMBERED)));
  } catch (error) {
    // A full or read-only disk says so, with its fix: the state itself is fine.
    const fault = fileFault(error, 'write the watch state file', path, setting);
    if (fault instanceof FileSystemError) throw fault;
    throw new StateFileError(`cannot write ${echoPath(path)}: ${(error as Error).message}`);
  }
}

/**
 * Why a saved cursor does not fit this run, or undefined when it does. Change times are the
 * service's own, and a cursor taken with one filter can be ahead of changes another filter sees:
 * using it would skip them.
 */
export function stateMismatch(state: WatchState, service: string, filters: FeedFilters): string | undefined {
  const same = (a: string | undefined, b: string | undefined) =>
    (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
  // The file's values are outside text: anyone could have written them, a pasted key among them.
  const quote = (value: string) => echoValue(value, []);
  if (state.service !== service)
    return `it follows ${state.service ? quote(state.service) : 'another service'}, not ${service}`;
  if (!same(state.filters.type, filters.type) || !same(state.filters.model, filters.model)) {
    const show = (f: FeedFilters) =>
      `--type ${f.type === undefined ? '(any)' : quote(f.type)} --model ${f.model === undefined ? '(any)' : quote(f.model)}`;
    return `it was saved with ${show(state.filters)}, and this run has ${show(filters)}`;
  }
  return undefined;
}
