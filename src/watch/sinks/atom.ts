/**
 * The `--atom <file>` sink: an Atom 1.0 feed (RFC 4287) of the most recent changes, for feed
 * readers and chat apps that follow feeds. Deliveries change the entries in memory; `flush` rewrites
 * the whole file atomically, so a reader never sees half a feed.
 *
 * Each entry carries its envelope, base64 JSON in an extension element, so a new run reads the
 * entries back with a regular expression instead of an XML parser. The file is treated as
 * untrusted when read back: anything that is not an entry this sink wrote is dropped, with a
 * warning, and the file is replaced on the next flush.
 *
 * A feed is meant to be served and holds no secret, so the file is not made user-only: an existing
 * file keeps its mode, a new one gets the umask's default. A symlink (into a web server's folder,
 * say) stays a link: the write goes to the file it leads to.
 *
 * Every text from the service is made fit for XML 1.0 (characters it forbids removed, markup
 * escaped) and for a reader's screen (escape sequences, control characters and bidi overrides
 * removed), and cut to a length no real value reaches.
 */

import { dirname, resolve } from 'node:path';
import { apiSchemas, type ChangeEvent } from '../../api/schemas.js';
import { DeliveryError } from '../../errors.js';
import { ENVELOPE_TYPE, type Envelope } from '../../feed/envelope.js';
import { isRecord } from '../../is-record.js';
import { nodeFs } from '../../lazy-node.js';
import { modeToKeep, writeFileAtomic } from '../../store/atomic-file.js';
import { fileFault } from '../../store/file-fault.js';
import { removeLeftovers } from '../../store/leftovers.js';
import { LockedError } from '../../store/lock.js';
import { openRegular, readHead as readFileHead } from '../../store/open-regular.js';
import { withWriteLock } from '../../store/write-lock.js';
import { echoPath } from '../../text/redact.js';
import { oneLine, terminalSafe } from '../../text/terminal.js';
import { VERSION } from '../../version.js';
import { type MarkedDelivery, markDelivery, readMarking } from '../news.js';
import { markingTag, movesText } from '../news-text.js';
import type { Sink } from './sink.js';

export interface AtomSinkOptions {
  /** The feed file; its folder is created user-only when missing. */
  path: string;
  /** The feed's title. @default "Model Change Feed" */
  title?: string;
  /** The feed's `<id>`: a stable URN the caller derives from the base URL and the filters. */
  feedId: string;
  /**
   * Where readers fetch the feed (`--atom-url`), an absolute http(s) URL: the feed's
   * `<link rel="self">`, which feed validators ask for. @default none
   */
  selfUrl?: string;
  /** The clock for the feed's `<updated>`. @default () => new Date() */
  now?: () => Date;
  /** Told when the existing file cannot be read back (it is then replaced on the next flush). */
  warn: (message: string) => void;
}

/** How many entries the feed keeps, newest first. */
export const ATOM_MAX_ENTRIES = 100;

const DEFAULT_TITLE = 'Model Change Feed';
const ATOM_NAMESPACE = 'http://www.w3.org/2005/Atom';
/** The namespace of our extension element; also how a file this sink wrote is recognised. */
const EXTENSION_NAMESPACE = 'urn:model-feed:atom:1';

/**
 * How much of an existing file is read back. Entries are newest first, so a larger file (not one
 * this sink wrote) loses its oldest entries, not the run.
 */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** How many envelope elements are looked at when reading back, valid or not: a bound on the work. */
const MAX_SCANNED_ENVELOPES = ATOM_MAX_ENTRIES * 10;
/**
 * An envelope larger than this (real ones are about 1 KiB) is not stored in its entry: the entry
 * is in the feed, but is not read back after a restart. Keeps 100 entries well under MAX_READ_BYTES.
 */
const MAX_STORED_ENVELOPE_BYTES = 64 * 1024;

/** Longest texts an entry shows; far more than any real value, and one huge value stays small. */
const MAX_TITLE_LENGTH = 300;
const MAX_SUMMARY_LENGTH = 4000;
const MAX_VALUE_LENGTH = 1000;
const MAX_NAME_LENGTH = 200;
const MAX_URL_LENGTH = 2000;

const ENVELOPE_ELEMENT = /<mf:envelope>([A-Za-z0-9+/]*={0,2})<\/mf:envelope>/g;

/**
 * Every character outside XML 1.0's `Char` production: C0 controls but tab/LF/CR, U+FFFE/FFFF and
 * lone surrogates (with the `u` flag a lone surrogate is a code point of its own, outside the class).
 */
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** The first `length` code units, without leaving half of a surrogate pair at the end. */
function cut(text: string, length: number): string {
  const head = text.slice(0, length);
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
}

/** A text cut to `length`, with an ellipsis when it was longer. */
function bounded(text: string, length: number): string {
  return text.length <= length ? text : `${cut(text, length - 1).trimEnd()}…`;
}

/** XML-escaped, with the characters XML 1.0 forbids removed: safe in text and in attribute values. */
function xml(text: string): string {
  return text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** One upstream value on one line, screen-safe and bounded; '' for null. Not yet XML-escaped. */
function line(value: string | null | undefined, length: number): string {
  if (!value) return '';
  return bounded(oneLine(cut(value, length * 4)).trim(), length);
}

/** Multi-line upstream text, screen-safe and bounded. Not yet XML-escaped. */
function block(value: string | null | undefined, length: number): string {
  if (!value) return '';
  return bounded(terminalSafe(cut(value, length * 4)).trim(), length);
}

/** An RFC 3339 timestamp for a date-like string, or undefined when it is not one. */
function rfc3339(value: string | null | undefined): string | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return undefined;
  const iso = new Date(time).toISOString();
  // Years past 9999 come out as "+010000-…", which RFC 3339 does not allow.
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

/** The http(s) source link, normalised; undefined for any other scheme or a broken URL. */
function httpLink(value: string | null): string | undefined {
  if (!value || value.length > MAX_URL_LENGTH) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.href.length <= MAX_URL_LENGTH ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The entry's `<id>`: a URN from the event id, percent-encoded. Lone surrogates (which
 * encodeURIComponent refuses) become U+FFFD first. Also the key entries are deduplicated on, so
 * entry ids in the file are unique whatever the service sends.
 */
export function atomEntryId(eventId: string): string {
  const wellFormed = eventId.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
  return `urn:model-feed:event:${encodeURIComponent(wellFormed)}`;
}

/** official / pending / rejected, as the service says; from `official` when it says nothing. */
function verificationOf(event: ChangeEvent): string {
  const status = line(event.verificationStatus, MAX_NAME_LENGTH);
  if (status) return status;
  if (event.official === true) return 'official';
  return 'unverified';
}

function changeText(before: string, after: string): string | undefined {
  if (before && after) return `${before} → ${after}`;
  if (after) return `→ ${after}`;
  if (before) return `was ${before}`;
  return undefined;
}

function renderEntry(delivery: MarkedDelivery): string {
  const { envelope, event, marking } = delivery;
  const slug = line(event.model.slug, MAX_NAME_LENGTH);
  const modelName = line(event.model.name, MAX_NAME_LENGTH);
  const model = modelName && slug ? `${modelName} (${slug})` : modelName || slug;
  const eventType = line(event.eventType, MAX_NAME_LENGTH);
  const plainTitle = line(event.title, MAX_TITLE_LENGTH) || [eventType, model].filter(Boolean).join(': ');
  // A reader lists titles: the marking goes first, so an update or a rejected change shows as one;
  // the whole stays within the title's bound.
  const title = line(`${markingTag(marking, envelope.data)} ${plainTitle}`, MAX_TITLE_LENGTH);
  const moves = marking.delivery === 'update' ? movesText(marking, envelope.data) : '';
  const summary = block(event.summary, MAX_SUMMARY_LENGTH);
  const change = changeText(
    line(event.beforeValue, MAX_VALUE_LENGTH),
    line(event.afterValue, MAX_VALUE_LENGTH),
  );
  const verification = verificationOf(event);
  const link = httpLink(event.sourceUrl);
  const content = [
    summary,
    model && `Model: ${model}`,
    change && `Change: ${change}`,
    `Verification: ${verification}${marking.rejected ? ' (rejected: not a real change)' : ''}`,
    `Delivery: ${marking.delivery}${moves ? ` (${moves})` : ''}`,
    link && `Source: ${link}`,
  ]
    .filter(Boolean)
    .join('\n');
  const published = rfc3339(event.detectedAt);
  const updated = rfc3339(envelope.timestamp) ?? new Date(0).toISOString();
  const author = line(event.sourceName, MAX_NAME_LENGTH) || DEFAULT_TITLE;
  const json = JSON.stringify(envelope);
  const stored =
    Buffer.byteLength(json) <= MAX_STORED_ENVELOPE_BYTES
      ? `    <mf:envelope>${Buffer.from(json).toString('base64')}</mf:envelope>\n`
      : '';
  return [
    '  <entry>\n',
    `    <id>${xml(atomEntryId(event.id))}</id>\n`,
    `    <title type="text">${xml(title)}</title>\n`,
    `    <updated>${updated}</updated>\n`,
    published ? `    <published>${published}</published>\n` : '',
    `    <author><name>${xml(author)}</name></author>\n`,
    summary ? `    <summary type="text">${xml(summary)}</summary>\n` : '',
    `    <content type="text">${xml(content)}</content>\n`,
    link ? `    <link rel="alternate" type="text/html" href="${xml(link)}"/>\n` : '',
    eventType ? `    <category term="${xml(eventType)}"/>\n` : '',
    `    <category scheme="urn:model-feed:verification" term="${xml(verification)}"/>\n`,
    `    <category scheme="urn:model-feed:delivery" term="${marking.delivery}"/>\n`,
    stored,
    '  </entry>\n',
  ].join('');
}

function renderFeed(options: AtomSinkOptions, entries: readonly MarkedDelivery[], updated: Date): string {
  const title = line(options.title, MAX_TITLE_LENGTH) || DEFAULT_TITLE;
  return [
    '<?xml version="1.0" encoding="utf-8"?>\n',
    `<feed xmlns="${ATOM_NAMESPACE}" xmlns:mf="${EXTENSION_NAMESPACE}">\n`,
    `  <id>${xml(options.feedId)}</id>\n`,
    `  <title type="text">${xml(title)}</title>\n`,
    `  <updated>${updated.toISOString()}</updated>\n`,
    options.selfUrl
      ? `  <link rel="self" type="application/atom+xml" href="${xml(options.selfUrl)}"/>\n`
      : '',
    `  <generator version="${xml(VERSION)}">model-feed-mcp</generator>\n`,
    ...entries.map(renderEntry),
    '</feed>\n',
  ].join('');
}

/** A stored envelope read back: the same checks as a page from the service, or undefined. */
function readEnvelope(base64: string): MarkedDelivery | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || value.type !== ENVELOPE_TYPE) return undefined;
  const { timestamp, deliveryId, data } = value;
  if (typeof timestamp !== 'string' || rfc3339(timestamp) === undefined) return undefined;
  if (typeof deliveryId !== 'string' || !isRecord(data)) return undefined;
  const parsed = apiSchemas().ChangeEvent.safeParse(data);
  if (!parsed.success) return undefined;
  const envelope: Envelope = { type: ENVELOPE_TYPE, timestamp, deliveryId, data };
  // An entry written before deliveries were marked reads as new.
  return markDelivery({ envelope, event: parsed.data }, readMarking(value, parsed.data));
}

/**
 * The first MAX_READ_BYTES of the file; undefined when it does not exist. Opened without blocking
 * and judged on the descriptor (store/open-regular.ts): a FIFO is refused, not waited on, and
 * another user's file is not believed (entries planted in it would be served as ours).
 */
async function readHead(path: string): Promise<string | undefined> {
  const opened = await openRegular(path, { followLink: true });
  if (opened.kind === 'missing') return undefined;
  if (opened.kind === 'refused') throw fsError(NOT_A_FILE, `it ${opened.reason}`);
  try {
    return (await readFileHead(opened.file, Math.min(opened.size, MAX_READ_BYTES)))
      .subarray(0, MAX_READ_BYTES)
      .toString('utf8');
  } finally {
    await opened.file.close();
  }
}

/** Our code for a path that holds no regular file of this user's: replaced, as a foreign feed is. */
const NOT_A_FILE = 'ENOTFILE';

/** As many links as Linux follows in one path (SYMLOOP_MAX) before it gives up with ELOOP. */
const MAX_LINK_HOPS = 40;

function fsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * The file a write to `path` lands in: `path` itself, or the end of its chain of symlinks, which
 * may not exist yet. Renaming over `path` would replace the link with a file.
 */
async function linkTarget(path: string): Promise<string> {
  let current = path;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop += 1) {
    let link: string;
    try {
      link = await nodeFs().readlink(current);
    } catch (error) {
      // EINVAL: not a link. ENOENT: nothing there yet, the write creates it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINVAL' || code === 'ENOENT') return current;
      throw error;
    }
    current = resolve(dirname(current), link);
  }
  throw fsError('ELOOP', `${path}: too many levels of symbolic links`);
}

interface Loaded {
  entries: MarkedDelivery[];
  /** False when the file should be rewritten even without a new delivery: missing, foreign, damaged. */
  intact: boolean;
}

async function load(path: string, warn: (message: string) => void): Promise<Loaded> {
  let text: string | undefined;
  try {
    text = await readHead(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    // A feed that is there but cannot be read (permission denied, say) stops the sink: replacing
    // it would drop every entry in it.
    if (code !== NOT_A_FILE) throw fileFault(error, 'read the Atom feed', path, '--atom');
    warn(
      `atom feed ${echoPath(path)} could not be read (${code}): ${(error as Error).message}; it will be replaced`,
    );
    return { entries: [], intact: false };
  }
  if (text === undefined) return { entries: [], intact: false };
  if (!text.includes(`xmlns:mf="${EXTENSION_NAMESPACE}"`)) {
    warn(`atom feed ${echoPath(path)} was not written by model-feed-mcp; it will be replaced`);
    return { entries: [], intact: false };
  }
  const entries: MarkedDelivery[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  let scanned = 0;
  for (const match of text.matchAll(ENVELOPE_ELEMENT)) {
    if (entries.length >= ATOM_MAX_ENTRIES || scanned >= MAX_SCANNED_ENVELOPES) break;
    scanned += 1;
    const delivery = readEnvelope(match[1]!);
    const key = delivery && atomEntryId(delivery.event.id);
    if (!delivery || !key || seen.has(key)) {
      dropped += 1;
      continue;
    }
    seen.add(key);
    entries.push(delivery);
  }
  const complete = /<\/feed>\s*$/.test(text);
  if (dropped > 0 || !complete) {
    const what = dropped > 0 ? `${dropped} of its entries could not be read back` : 'it is incomplete';
    warn(`atom feed ${echoPath(path)}: ${what}; it will be rewritten`);
  }
  return { entries, intact: dropped === 0 && complete };
}

/** `fresh` (newest first) on top of the file's entries, unique by entry id, at most ATOM_MAX_ENTRIES. */
function merged(fresh: readonly MarkedDelivery[], stored: readonly MarkedDelivery[]): MarkedDelivery[] {
  const keys = new Set(fresh.map((delivery) => atomEntryId(delivery.event.id)));
  const rest = stored.filter((delivery) => !keys.has(atomEntryId(delivery.event.id)));
  return [...fresh, ...rest].slice(0, ATOM_MAX_ENTRIES);
}

/**
 * Reads the entries an earlier run wrote to `options.path`, then keeps the file up to date. Each
 * rewrite holds a lock beside the file and reads it again first, so two watchers writing one feed
 * (one per `--type`, say) keep each other's entries.
 */
export async function createAtomSink(options: AtomSinkOptions): Promise<Sink> {
  const now = options.now ?? (() => new Date());
  const { path } = options;
  const loaded = await load(path, options.warn);
  /** Delivered and not yet written, newest first, unique by entry id. */
  let fresh: MarkedDelivery[] = [];
  /** The file must be rewritten even without a delivery: missing, foreign or damaged. */
  let stale = !loaded.intact;
  let closed = false;
  /** Temp files a killed writer left beside the feed were removed. */
  let cleaned = false;
  /** Flushes run one after another, so two never write the same entries. */
  let flushes: Promise<void> = Promise.resolve();

  async function write(signal: AbortSignal): Promise<void> {
    if (fresh.length === 0 && !stale) return;
    if (signal.aborted) throw signal.reason;
    const writing = fresh;
    try {
      // Through a symlink: the temp file goes beside the link's target, so the rename stays on one
      // file system and the link stays a link.
      const target = await linkTarget(path);
      await withWriteLock(target, signal, async () => {
        // Once per run: the folder may be a web server's, with many files to list.
        if (!cleaned) await removeLeftovers(target);
        cleaned = true;
        // Read again under the lock: another watcher may have added entries since.
        const stored = (await load(path, () => {})).entries;
        const text = renderFeed(options, merged(writing, stored), now());
        await writeFileAtomic(target, text, { mode: await modeToKeep(target) });
      });
    } catch (error) {
      if (error instanceof LockedError) {
        const who = error.holder ? `process ${error.holder.pid}` : 'another process';
        throw new DeliveryError(
          `${label}: ${who} has held its lock ${echoPath(error.path)} for longer than a rewrite takes`,
          false,
        );
      }
      throw fileFault(error, 'write the Atom feed', path, '--atom');
    }
    // Deliveries made while it was written stay for the next flush.
    fresh = fresh.filter((delivery) => !writing.includes(delivery));
    stale = false;
  }

  const label = `atom ${echoPath(path)}`;

  return {
    label,
    async deliver(delivery, signal) {
      if (signal.aborted) throw signal.reason;
      if (closed) throw new DeliveryError(`${label}: the sink is closed`, false);
      // A redelivery or an update (a verification, a new price) replaces the entry and moves it up.
      fresh = merged([delivery], fresh);
    },
    flush(signal) {
      const run = flushes.then(() => write(signal));
      flushes = run.catch(() => {});
      return run;
    },
    async close() {
      closed = true;
    },
  };
}
