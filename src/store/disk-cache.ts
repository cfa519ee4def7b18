/**
 * One cache for every runner process of the user: catalog answers and the last 429, as files in the
 * user's cache folder. Claude Desktop, Cursor and Claude Code each start their own runner; with this
 * they share what one of them fetched, and no process asks before a 429's `retry-after`.
 *
 * - Entries are keyed by base URL and a hash of the key: two keys or services never share one. File
 *   names are hashes: they hold neither the key nor the query.
 * - Files are written atomically, user-only; the folder is user-only and must be this user's.
 * - The folder is bounded in bytes (5 MB by default): the oldest files go first.
 * - A corrupt, foreign or unreadable file is ignored and removed, never fatal: it is only a cache.
 *   Each record carries a checksum of its content: one changed underneath, even into other valid
 *   JSON (a price edited), is a miss, never served.
 */

import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_RETRY_AFTER_S, type RateLimitInfo } from '../api/rate-limit.js';
import { nodeCrypto, nodeFs } from '../lazy-node.js';
import { ensureFolder, writeFileAtomic } from './atomic-file.js';
import { isLeftover } from './leftovers.js';
import { openRegular, openRegularSync, readHead, readHeadSync } from './open-regular.js';

export const DEFAULT_DISK_CACHE_BYTES = 5 * 1024 * 1024;
const VERSION = 1;
/** Clocks of processes on one machine agree; a minute covers a clock adjusted while one runs. */
const CLOCK_SLACK_MS = 60_000;
/** A 429 record is a few hundred bytes. */
const MAX_LIMIT_FILE_BYTES = 16 * 1024;
const OUR_FILE = /^[0-9a-f]{16}-[0-9a-z]+\.json$/;
/** writeFileAtomic's temp file for one of ours (its pid captured): a writer killed mid-write leaves it. */
const OUR_TEMP_FILE = /^\.[0-9a-f]{16}-[0-9a-z]+\.json\.(\d+)\.[0-9a-f]+\.tmp$/;

export interface DiskEntry {
  /** The answer's body, as parsed JSON: checked again by the caller like any answer. */
  body: unknown;
  /** When it was fetched (epoch ms). */
  storedAt: number;
  /** Length of the stored file: what the memory cache counts it as. */
  bytes: number;
}

/** A 429 as the processes of this key share it. */
export interface SharedLimit {
  /** When calls may resume (epoch ms). */
  retryAt: number;
  serviceMessage: string | undefined;
  rateLimit: RateLimitInfo | undefined;
}

export interface DiskCacheOptions {
  folder: string;
  baseUrl: string;
  apiKey: string;
  /** @default 5 MB */
  maxBytes?: number;
  now?: () => number;
  /** Why the cache was turned off or a file dropped: a debug log line. */
  note?: (message: string) => void;
}

const sha256 = (text: string): string => nodeCrypto().createHash('sha256').update(text).digest('hex');

/** The record with its checksum: a hash of the rest, last, so the rest keeps its order when read back. */
function sealed(record: Record<string, unknown>): Record<string, unknown> {
  return { ...record, sum: sha256(JSON.stringify(record)) };
}

/**
 * Whether a record read back is the one written. Our own JSON.stringify output parses and
 * stringifies back to the same text, so the hash of the rest is the hash that was stored.
 */
function intact(record: Record<string, unknown>): boolean {
  const { sum, ...rest } = record;
  return typeof sum === 'string' && sum === sha256(JSON.stringify(rest));
}

export class DiskCache {
  private namespaceHash: string | undefined;
  /** The bound of the whole folder, and so of any one entry. */
  readonly maxBytes: number;
  private readonly now: () => number;
  private ready: Promise<boolean> | undefined;

  constructor(private readonly options: DiskCacheOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_DISK_CACHE_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** The folder exists, is a folder of this user's, and is user-only; else the cache stays off. */
  private prepare(): Promise<boolean> {
    this.ready ??= (async () => {
      const { folder } = this.options;
      try {
        await ensureFolder(folder);
        const info = await nodeFs().lstat(folder);
        const uid = process.getuid?.();
        if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
          this.options.note?.(`disk cache off: ${folder} is not a folder of this user's`);
          return false;
        }
        if (uid !== undefined && (info.mode & 0o077) !== 0) await nodeFs().chmod(folder, 0o700);
        return true;
      } catch (error) {
        this.options.note?.(`disk cache off: ${(error as Error).message}`);
        return false;
      }
    })();
    return this.ready;
  }

  /**
   * Base URL and key, the key only through its own hash, so the namespace cannot be turned back
   * into it. Computed at first use: hashing at start-up would load node:crypto before it is needed.
   */
  private get namespace(): string {
    this.namespaceHash ??= sha256(JSON.stringify([this.options.baseUrl, sha256(this.options.apiKey)])).slice(
      0,
      16,
    );
    return this.namespaceHash;
  }

  private file(name: string): string {
    return join(this.options.folder, `${this.namespace}-${name}.json`);
  }

  private async readRecord(path: string): Promise<(Record<string, unknown> & { bytes: number }) | undefined> {
    if (!(await this.prepare())) return undefined;
    try {
      const opened = await openRegular(path);
      if (opened.kind === 'missing') return undefined;
      if (opened.kind === 'refused') throw new Error(opened.reason);
      let bytes: Buffer;
      try {
        bytes = await readHead(opened.file, this.maxBytes);
      } finally {
        await opened.file.close();
      }
      if (bytes.length > this.maxBytes) throw new Error('larger than the whole cache');
      const text = bytes.toString('utf8');
      const record = JSON.parse(text) as Record<string, unknown>;
      if (record?.v !== VERSION) throw new Error('not a cache file of this version');
      if (!intact(record)) throw new Error('changed since it was written (its checksum does not match)');
      return { ...record, bytes: text.length };
    } catch (error) {
      this.options.note?.(`disk cache: dropped ${path}: ${(error as Error).message}`);
      await nodeFs()
        .rm(path, { force: true })
        .catch(() => {});
      return undefined;
    }
  }

  /** The stored answer for `key` (path and query), whatever its age; undefined when none. */
  async read(key: string): Promise<DiskEntry | undefined> {
    const path = this.file(sha256(key).slice(0, 24));
    const record = await this.readRecord(path);
    if (!record || record.key !== key || typeof record.storedAt !== 'number' || !('body' in record)) {
      return undefined;
    }
    // Stored "in the future" (a clock set back since): it would count as fresh until then. Dropped.
    if (record.storedAt > this.now() + CLOCK_SLACK_MS) {
      this.options.note?.(`disk cache: dropped ${path}: stored after now`);
      await nodeFs()
        .rm(path, { force: true })
        .catch(() => {});
      return undefined;
    }
    return { body: record.body, storedAt: record.storedAt, bytes: record.bytes };
  }

  /** Stores an answer; failures are noted, never thrown: the answer itself was fine. */
  async write(key: string, body: unknown): Promise<void> {
    await this.writeRecord(sha256(key).slice(0, 24), { v: VERSION, key, storedAt: this.now(), body });
  }

  /**
   * The 429 another process saw, while it lasts. Asked before every uncached request, so read
   * synchronously: a missing file costs microseconds, where a trip through the thread pool cost a
   * tenth of a millisecond a call.
   */
  async readLimit(): Promise<SharedLimit | undefined> {
    if (!(await this.prepare())) return undefined;
    const path = this.file('429');
    let record: Record<string, unknown>;
    try {
      // Opened without blocking and judged on the descriptor: a FIFO would block the process, a
      // huge file cost a read before every request, another user's file say anything.
      const opened = openRegularSync(path);
      if (opened.kind === 'missing') return undefined;
      if (opened.kind === 'refused') return this.dropLimit(path, opened.reason);
      let bytes: Buffer;
      try {
        bytes = readHeadSync(opened.file, MAX_LIMIT_FILE_BYTES);
      } finally {
        closeSync(opened.file);
      }
      if (bytes.length > MAX_LIMIT_FILE_BYTES) return this.dropLimit(path, 'larger than a 429 record');
      record = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      return this.dropLimit(path, (error as Error).message);
    }
    const now = this.now();
    const { retryAt, storedAt } = record ?? {};
    if (record?.v !== VERSION || typeof retryAt !== 'number' || typeof storedAt !== 'number') {
      return this.dropLimit(path, 'not a 429 record of this version');
    }
    // The same guards as a catalog entry's, or one record would stop every call until its time:
    // stored "in the future" (a clock set back since), or a wait longer than any retry-after allowed.
    if (storedAt > now + CLOCK_SLACK_MS) return this.dropLimit(path, 'stored after now');
    if (retryAt > now + MAX_RETRY_AFTER_S * 1000 + CLOCK_SLACK_MS) {
      return this.dropLimit(path, 'a wait longer than any retry-after');
    }
    if (!intact(record))
      return this.dropLimit(path, 'changed since it was written (its checksum does not match)');
    if (retryAt <= now) return undefined;
    return {
      retryAt,
      serviceMessage: typeof record.serviceMessage === 'string' ? record.serviceMessage : undefined,
      rateLimit: (record.rateLimit ?? undefined) as RateLimitInfo | undefined,
    };
  }

  async writeLimit(limit: SharedLimit): Promise<void> {
    await this.writeRecord('429', { v: VERSION, storedAt: this.now(), ...limit });
  }

  private async dropLimit(path: string, why: string): Promise<undefined> {
    this.options.note?.(`disk cache: dropped ${path}: ${why}`);
    await nodeFs()
      .rm(path, { force: true })
      .catch(() => {});
    return undefined;
  }

  private async writeRecord(name: string, record: Record<string, unknown>): Promise<void> {
    if (!(await this.prepare())) return;
    const text = JSON.stringify(sealed(record));
    if (text.length > this.maxBytes) return;
    try {
      await writeFileAtomic(this.file(name), text);
      await this.evict();
    } catch (error) {
      this.options.note?.(`disk cache: could not write: ${(error as Error).message}`);
    }
  }

  /**
   * Oldest files first, until the folder holds at most `maxBytes`, and temp files left by killed
   * writers; other processes may race: fine.
   */
  private async evict(): Promise<void> {
    const { folder } = this.options;
    const all = await nodeFs().readdir(folder);
    await this.removeStaleTemps(all.filter((name) => OUR_TEMP_FILE.test(name)));
    const names = all.filter((name) => OUR_FILE.test(name));
    const files = (
      await Promise.all(
        names.map(async (name) => {
          const info = await nodeFs()
            .stat(join(folder, name))
            .catch(() => undefined);
          return info ? { path: join(folder, name), size: info.size, mtime: info.mtimeMs } : undefined;
        }),
      )
    ).filter((file) => file !== undefined);
    let total = files.reduce((sum, file) => sum + file.size, 0);
    files.sort((a, b) => a.mtime - b.mtime);
    for (const file of files) {
      if (total <= this.maxBytes) break;
      await nodeFs()
        .rm(file.path, { force: true })
        .catch(() => {});
      total -= file.size;
    }
  }

  private async removeStaleTemps(names: readonly string[]): Promise<void> {
    const { folder } = this.options;
    for (const name of names) {
      const path = join(folder, name);
      const info = await nodeFs()
        .stat(path)
        .catch(() => undefined);
      const pid = Number(OUR_TEMP_FILE.exec(name)?.[1]);
      if (info && isLeftover(pid, info.mtimeMs, this.now()))
        await nodeFs()
          .rm(path, { force: true })
          .catch(() => {});
    }
  }
}
