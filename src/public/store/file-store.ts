/**
 * The public store as files in one folder of this user's (0700):
 * - `head.json`, replaced whole on every append: the newest head, and each log's committed length;
 * - `feed.jsonl`, `prices.jsonl`, `polls.jsonl`: append-only, one JSON object a line.
 * An append (under the fetch lock) cuts each log back to its committed length, appends, syncs the
 * logs, then replaces the head: that rename is the commit. Readers read a log only up to the
 * committed length, so a `kill -9` anywhere leaves the store as it was or as it became, and a
 * repeated append never finds a half-written one in its way.
 *
 * `append` must run inside `withFetchLock`. Within this process that is checked; another process
 * appending without the lock cannot be seen cheaply, and would lose one of the two appends.
 * A head that cannot be read (garbage, another version) reads as no head, and the next append
 * starts the store over: the logs then count from nothing, their old lines unread, and change
 * times go on after that append's snapshot time.
 */

import { join, resolve } from 'node:path';
import { FileSystemError } from '../../errors.js';
import { nodeCrypto } from '../../lazy-node.js';
import { ensureFolder, writeFileAtomic } from '../../store/atomic-file.js';
import { removeLeftovers } from '../../store/leftovers.js';
import { openRegular, readHead as readUpTo } from '../../store/open-regular.js';
import { assignChangeTimes } from './change-times.js';
import { holdsFetchLock, withFetchLock } from './fetch-lock.js';
import { appendAt, MAX_LOG_BYTES, openForAppend, readLines } from './jsonl-log.js';
import type { PublicStore, SnapshotCommit, StoredEvent, StoredPricePoint, StoreHead } from './store.js';
import { refusedFile, STORE_SETTING, storeFault } from './store-faults.js';
import {
  checkHeadReadsBack,
  encodeFeedLine,
  encodeHead,
  encodeLines,
  encodePollLine,
  encodePriceLine,
  type HeadFile,
  type LogLengths,
  MAX_HEAD_BYTES,
  parseFeedLine,
  parseHead,
  parsePriceLine,
} from './store-records.js';
import { addEvents, addPrices, EMPTY_FEED, EMPTY_PRICES, type Feed, type Prices } from './store-views.js';

/**
 * A head file replaced within the same tick of a coarse clock (1 s on HFS+, 2 s on FAT) may show the
 * same inode, size and mtime as the one it replaced: a head younger than this is always read again.
 */
const SETTLED_MS = 3000;

export interface FileStoreOptions {
  /** Epoch ms: the fetch lock's deadline and the age of a head file. @default Date.now */
  now?: () => number;
  /** How long `withFetchLock` waits for another process's refresh, in ms. @default 30000 */
  lockWaitMs?: number;
  /** Told what was skipped (unreadable lines, an unreadable head): the store itself goes on. */
  onNote?: (message: string) => void;
}

export function openFileStore<S>(folder: string, options: FileStoreOptions = {}): PublicStore<S> {
  return new FileStore<S>(resolve(folder), options);
}

type LogName = keyof LogLengths;
const LOGS: readonly LogName[] = ['feed', 'prices', 'polls'];

interface CachedHead {
  /** Inode, size and mtime of the file it was parsed from; empty when there is none. */
  readonly key: string;
  /** Old enough that a replacement would show another key. */
  readonly settled: boolean;
  readonly file: HeadFile | null;
  readonly head: StoreHead<unknown> | null;
  /** The file's bytes: a head not yet settled is read again, but parsed again only if they differ. */
  readonly bytes?: Buffer;
}

interface LogView<T> {
  readonly generation: string;
  /** Bytes of the log read so far (whole lines). */
  readonly offset: number;
  readonly value: T;
}

class FileStore<S> implements PublicStore<S> {
  private readonly paths: Record<LogName | 'head' | 'lock', string>;
  private readonly now: () => number;
  private readonly lockWaitMs: number;
  private cachedHead: CachedHead | undefined;
  private feed: LogView<Feed> = { generation: '', offset: 0, value: EMPTY_FEED };
  private prices: LogView<Prices> = { generation: '', offset: 0, value: EMPTY_PRICES };
  private cleaned = false;

  constructor(
    private readonly folder: string,
    private readonly options: FileStoreOptions,
  ) {
    this.paths = {
      head: join(folder, 'head.json'),
      feed: join(folder, 'feed.jsonl'),
      prices: join(folder, 'prices.jsonl'),
      polls: join(folder, 'polls.jsonl'),
      lock: join(folder, 'fetch.lock'),
    };
    this.now = options.now ?? Date.now;
    this.lockWaitMs = options.lockWaitMs ?? 30_000;
  }

  async readHead(signal?: AbortSignal): Promise<StoreHead<S> | null> {
    return (await this.loadHead(false, signal)).head as StoreHead<S> | null;
  }

  async hasRecord(signal?: AbortSignal): Promise<boolean> {
    return (await this.loadHead(false, signal)).key !== '';
  }

  async readFeed(signal?: AbortSignal): Promise<readonly StoredEvent[]> {
    const { file } = await this.loadHead(false, signal);
    return (await this.syncFeed(file, signal)).list;
  }

  async readPrices(signal?: AbortSignal): Promise<ReadonlyMap<string, readonly StoredPricePoint[]>> {
    const { file } = await this.loadHead(false, signal);
    this.prices = await this.syncLog('prices', file, this.prices, EMPTY_PRICES, addPrices, signal);
    return this.prices.value;
  }

  withFetchLock<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withFetchLock(this.paths.lock, { waitMs: this.lockWaitMs, now: this.now, signal }, work);
  }

  async append(commit: SnapshotCommit<S>, signal?: AbortSignal): Promise<StoreHead<S>> {
    if (!holdsFetchLock(this.paths.lock)) {
      throw new Error(`append to the public store in ${this.folder} outside its withFetchLock`);
    }
    if (!Number.isSafeInteger(commit.takenAt) || commit.takenAt < 0) {
      throw new Error(`a snapshot taken at ${commit.takenAt}, not a count of Unix seconds`);
    }
    // Never the cached head: the lengths it commits are what the logs are cut back to.
    const { file: before, key } = await this.loadHead(true, signal);
    const feed = await this.syncFeed(before, signal);
    // Starting over after an unreadable head, the change times given before are lost: those after
    // begin past this snapshot, so a follower's cursor from the old store does not skip them.
    const startingOver = before === null && key !== '';
    const timed = assignChangeTimes(
      commit.events,
      (id) => feed.byId.has(id),
      commit.takenAt,
      before?.lastChangeTime ?? (startingOver ? commit.takenAt : 0),
    );
    const lines: Record<LogName, string> = {
      feed: encodeLines(timed.stored, encodeFeedLine, parseFeedLine, ({ event }) => `the event ${event.id}`),
      prices: encodeLines(
        commit.prices,
        encodePriceLine,
        parsePriceLine,
        ({ id }) => `a price point of ${id}`,
      ),
      polls: encodePollLine(commit.poll),
    };
    const headAfter = (generation: string, lengths: LogLengths): HeadFile => ({
      version: 1,
      generation,
      takenAt: commit.takenAt,
      recordingSince: before?.recordingSince ?? commit.takenAt,
      lastChangeTime: timed.lastChangeTime,
      polls: (before?.polls ?? 0) + 1,
      lastPoll: commit.poll,
      lengths,
      state: commit.state,
    });
    let generation = before?.generation ?? nodeCrypto().randomUUID();
    const lengths = { feed: 0, prices: 0, polls: 0, ...before?.lengths };
    // The head as it will be, lengths give or take a byte: one that would not read back (a state
    // of undefined, a time in ms) would make the next append start the store over.
    const grown = (name: LogName) => lengths[name] + Buffer.byteLength(lines[name]) + 1;
    for (const name of LOGS) {
      if (grown(name) > MAX_LOG_BYTES) {
        const action = `append to the public store's log past its bound of ${MAX_LOG_BYTES} bytes`;
        throw new FileSystemError(action, this.paths[name], 'EFBIG', STORE_SETTING);
      }
    }
    checkHeadReadsBack(
      encodeHead(
        headAfter(generation, { feed: grown('feed'), prices: grown('prices'), polls: grown('polls') }),
      ),
    );
    await ensureFolder(this.folder).catch((error) => {
      throw storeFault(error, "make the public store's folder", this.folder);
    });
    if (!this.cleaned) {
      // What a writer killed mid-write left: a head's temp file, a lock's (named after `fetch`, the
      // file the lock guards in removeLeftovers' terms). Only the lock's holder may remove them.
      this.cleaned = true;
      await removeLeftovers(this.paths.head);
      await removeLeftovers(join(this.folder, 'fetch'));
    }
    for (const name of LOGS) {
      if (lines[name] === '') continue;
      signal?.throwIfAborted();
      const written = await this.appendToLog(name, lengths[name], lines[name]);
      lengths[name] = written.length;
      // Cut by hand: what readers hold of it may no longer be there.
      if (written.damaged) generation = nodeCrypto().randomUUID();
    }
    const file = headAfter(generation, lengths);
    const bytes = Buffer.from(encodeHead(file));
    await writeFileAtomic(this.paths.head, bytes, { checkpoint: () => signal?.throwIfAborted() }).catch(
      (error) => {
        throw storeFault(error, "write the public store's head", this.paths.head);
      },
    );
    // Kept as read: this process's next reads find these bytes and skip parsing them again.
    const head = toStoreHead(file);
    this.keepHead({ key: '', settled: false, file, head, bytes });
    return head as StoreHead<S>;
  }

  private async appendToLog(name: LogName, length: number, lines: string) {
    const path = this.paths[name];
    try {
      const opened = await openForAppend(path);
      if (opened.kind === 'refused') throw refusedFile(path, opened.reason);
      try {
        return await appendAt(opened.file, opened.size, length, lines);
      } finally {
        await opened.file.close();
      }
    } catch (error) {
      throw storeFault(error, "append to the public store's log", path);
    }
  }

  /** The head, from memory when the file is the one read last time and old enough to be sure. */
  private async loadHead(fresh: boolean, signal?: AbortSignal): Promise<CachedHead> {
    signal?.throwIfAborted();
    const path = this.paths.head;
    try {
      const opened = await openRegular(path);
      if (opened.kind === 'missing')
        return this.keepHead({ key: '', settled: false, file: null, head: null });
      if (opened.kind === 'refused') throw refusedFile(path, opened.reason);
      try {
        const info = await opened.file.stat({ bigint: true });
        const key = `${info.ino}:${info.size}:${info.mtimeNs}`;
        const cached = this.cachedHead;
        if (!fresh && cached?.settled && cached.key === key) return cached;
        const settled = this.now() - Number(info.mtimeMs) > SETTLED_MS;
        const size = Number(info.size);
        const bytes =
          size > MAX_HEAD_BYTES ? undefined : (await readUpTo(opened.file, size)).subarray(0, size);
        if (!fresh && bytes !== undefined && cached?.bytes?.equals(bytes)) {
          return this.keepHead({ ...cached, key, settled });
        }
        const file = this.parseHeadBytes(bytes);
        return this.keepHead({
          key,
          settled,
          file,
          head: file && toStoreHead(file),
          ...(bytes && { bytes }),
        });
      } finally {
        await opened.file.close();
      }
    } catch (error) {
      throw storeFault(error, "read the public store's head", path);
    }
  }

  private keepHead(head: CachedHead): CachedHead {
    this.cachedHead = head;
    return head;
  }

  /**
   * The head's bytes, read up to its size, not to the bound (the buffer is allocated whole; a head
   * is replaced, never grown in place: bytes past its size when opened are none of ours);
   * undefined when it is over the bound.
   */
  private parseHeadBytes(bytes: Buffer | undefined): HeadFile | null {
    const parsed = bytes === undefined ? `over ${MAX_HEAD_BYTES} bytes` : parseHead(bytes.toString('utf8'));
    if (typeof parsed !== 'string') return parsed;
    this.options.onNote?.(
      `public store: ${this.paths.head} is unreadable (${parsed}); the next refresh starts over`,
    );
    return null;
  }

  private async syncFeed(head: HeadFile | null, signal?: AbortSignal): Promise<Feed> {
    this.feed = await this.syncLog('feed', head, this.feed, EMPTY_FEED, addEvents, signal);
    return this.feed.value;
  }

  /**
   * `view` brought up to the head's committed length of the log: only the lines past what it
   * holds are read, unless the log started over (another generation, or shorter than held).
   */
  private async syncLog<T>(
    name: LogName,
    head: HeadFile | null,
    view: LogView<T>,
    empty: T,
    add: (value: T, lines: readonly string[], skip: () => void) => T,
    signal: AbortSignal | undefined,
  ): Promise<LogView<T>> {
    if (!head) return { generation: '', offset: 0, value: empty };
    const length = head.lengths[name];
    const current =
      view.generation === head.generation && view.offset <= length
        ? view
        : { generation: head.generation, offset: 0, value: empty };
    if (current.offset === length) return current;
    const path = this.paths[name];
    try {
      const opened = await openRegular(path);
      // Removed by hand: nothing more to read, and the next append starts it again.
      if (opened.kind === 'missing') return current;
      if (opened.kind === 'refused') throw refusedFile(path, opened.reason);
      const lines: string[] = [];
      let read: Awaited<ReturnType<typeof readLines>>;
      try {
        const take = (line: string) => {
          lines.push(line);
          return true;
        };
        read = await readLines(opened.file, current.offset, length, take, signal);
      } finally {
        await opened.file.close();
      }
      let skipped = read.skipped;
      const value = add(current.value, lines, () => skipped++);
      if (skipped > 0) this.options.onNote?.(`public store: skipped ${skipped} unreadable lines of ${path}`);
      return { generation: current.generation, offset: read.end, value };
    } catch (error) {
      throw storeFault(error, "read the public store's log", path);
    }
  }
}

function toStoreHead(file: HeadFile): StoreHead<unknown> {
  const { takenAt, recordingSince, lastChangeTime, lastPoll, polls, state } = file;
  return { takenAt, recordingSince, lastChangeTime, lastPoll, polls, state };
}
