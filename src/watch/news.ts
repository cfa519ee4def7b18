/**
 * Whether a change is news: the watcher remembers what it delivered (a bounded memory, saved with
 * the cursor), so a change the service sends again, because its verification or its value moved,
 * is marked as an update of the one delivered before, with what moved and the values it had. A
 * rejected change is marked as such wherever it goes: it must never read like a real change.
 */

import type { ChangeEvent } from '../api/schemas.js';
import type { Delivery, Envelope } from '../feed/envelope.js';
import { isRecord } from '../is-record.js';
import { nodeCrypto } from '../lazy-node.js';

/**
 * The fields whose old value is kept, to be shown beside the new one (a verification, a price, a
 * date: short).
 */
const VALUED = ['verificationStatus', 'afterValue', 'beforeValue', 'detectedAt', 'publishedAt'] as const;
/** The fields kept by digest only (a title, a summary: long): an update names them, no more. */
const NAMED = ['title', 'summary', 'sourceUrl', 'sourceName', 'eventType'] as const;

/** The fields whose move an update names, in the order it names them. */
export const TRACKED_FIELDS = [...VALUED, ...NAMED] as const;
export type TrackedField = (typeof TRACKED_FIELDS)[number];
type ValuedField = (typeof VALUED)[number];
export const VALUED_FIELDS: ReadonlySet<TrackedField> = new Set(VALUED);

/**
 * How many delivered changes are remembered, the most recent kept, so a pending change is still
 * known when its verification comes; an older one is told as new. The state file holds them and is
 * rewritten after every page of a drain: 500 keep it near 150 KB, a few milliseconds a page.
 */
export const MAX_REMEMBERED = 500;
/**
 * A value longer than this is remembered by its digest: the update names it, without its old value.
 * Far longer than a price (`in $0.032 / out $0.18 per 1M tokens`) or a date; with it, every
 * remembered change stays under a kilobyte.
 */
export const MAX_REMEMBERED_VALUE = 64;
/** An id longer than any real one is not remembered, so one odd id cannot hold much memory. */
const MAX_REMEMBERED_ID = 200;

/** A remembered value: the value itself, null when absent, or the digest of a long or odd one. */
export type RememberedValue = string | null | { digest: string };

/** Hex digits of one NAMED field's digest: enough to tell two values of one field apart. */
const NAMED_DIGEST_LENGTH = 8;

export interface RememberedChange {
  id: string;
  /** The content hash of the delivery id last delivered for it. */
  hash: string;
  /** The VALUED fields' values (absent when null). */
  values: Partial<Record<ValuedField, Exclude<RememberedValue, null>>>;
  /** The NAMED fields' digests, NAMED_DIGEST_LENGTH hex digits each, in NAMED's order: one short string. */
  named: string;
}

/** What a delivery says about its change, beside the change itself. */
export interface Marking {
  /** `new`: not delivered before (that this watcher remembers); `update`: delivered before, now changed. */
  delivery: 'new' | 'update';
  /** The tracked fields that moved since the last delivery of this change; empty for `new`. */
  changed: TrackedField[];
  /** Their values then, where the value was short enough to remember. */
  previous: Partial<Record<TrackedField, string | null>>;
  /** The service rejected this change on review: not a change to act on. */
  rejected: boolean;
}

/** The envelope as the watcher delivers it: the feed's, with the marking before `data`. */
export interface MarkedEnvelope extends Envelope, Marking {}

export interface MarkedDelivery extends Delivery {
  envelope: MarkedEnvelope;
  marking: Marking;
}

function digest(value: unknown, length: number): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify(value) ?? '')
    .digest('hex')
    .slice(0, length);
}

function rememberedValue(value: unknown): RememberedValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && value.length <= MAX_REMEMBERED_VALUE) return value;
  return { digest: digest(value, 12) };
}

function namedDigests(data: Readonly<Record<string, unknown>>): string {
  return NAMED.map((field) => digest(data[field] ?? null, NAMED_DIGEST_LENGTH)).join('');
}

function sameValue(a: RememberedValue | undefined, b: RememberedValue): boolean {
  if (a === undefined || a === null || typeof a === 'string') return (a ?? null) === b;
  return b !== null && typeof b === 'object' && a.digest === b.digest;
}

/** The content hash part of `<event id>_<hash>`. */
function hashOf(deliveryId: string, eventId: string): string {
  return deliveryId.slice(eventId.length + 1);
}

export function isRejected(event: Pick<ChangeEvent, 'verificationStatus'>): boolean {
  return event.verificationStatus === 'rejected';
}

/**
 * The changes delivered lately, oldest first, at most MAX_REMEMBERED: a Map kept in delivery
 * order, so the one delivered longest ago is the one forgotten.
 */
export class DeliveredMemory {
  private readonly changes = new Map<string, RememberedChange>();

  constructor(saved: readonly RememberedChange[] = []) {
    for (const change of saved.slice(-MAX_REMEMBERED)) this.changes.set(change.id, change);
  }

  /** How this delivery is to be marked, against what was delivered before. */
  mark(delivery: Delivery): Marking {
    const { envelope, event } = delivery;
    const rejected = isRejected(event);
    const before = this.changes.get(event.id);
    if (before === undefined) return { delivery: 'new', changed: [], previous: {}, rejected };
    const changed: TrackedField[] = [];
    const previous: Marking['previous'] = {};
    if (before.hash !== hashOf(envelope.deliveryId, event.id)) {
      for (const field of VALUED) {
        const was = before.values[field];
        if (sameValue(was, rememberedValue(envelope.data[field]))) continue;
        changed.push(field);
        if (was === undefined || typeof was === 'string') previous[field] = was ?? null;
      }
      const named = namedDigests(envelope.data);
      NAMED.forEach((field, n) => {
        const at = n * NAMED_DIGEST_LENGTH;
        if (named.slice(at, at + NAMED_DIGEST_LENGTH) !== before.named.slice(at, at + NAMED_DIGEST_LENGTH))
          changed.push(field);
      });
    }
    return { delivery: 'update', changed, previous, rejected };
  }

  /** Remembers a delivery made, as the newest. */
  remember(delivery: Delivery): void {
    const { envelope, event } = delivery;
    if (event.id.length > MAX_REMEMBERED_ID) return;
    const values: RememberedChange['values'] = {};
    for (const field of VALUED) {
      const value = rememberedValue(envelope.data[field]);
      // Absent and null read the same: only what is there is written down.
      if (value !== null) values[field] = value;
    }
    const hash = hashOf(envelope.deliveryId, event.id);
    this.changes.delete(event.id);
    this.changes.set(event.id, { id: event.id, hash, values, named: namedDigests(envelope.data) });
    if (this.changes.size > MAX_REMEMBERED) {
      const oldest = this.changes.keys().next().value as string;
      this.changes.delete(oldest);
    }
  }

  /** Oldest first, for the state file. */
  list(): RememberedChange[] {
    return [...this.changes.values()];
  }
}

/** The delivery with its marking, in the envelope before `data` (so a reader meets it first). */
export function markDelivery(delivery: Delivery, marking: Marking): MarkedDelivery {
  const { type, timestamp, deliveryId, data } = delivery.envelope;
  const { delivery: kind, changed, previous, rejected } = marking;
  const envelope: MarkedEnvelope = {
    type,
    timestamp,
    deliveryId,
    delivery: kind,
    changed,
    previous,
    rejected,
    data,
  };
  return { envelope, event: delivery.event, marking };
}

function readValue(value: unknown): Exclude<RememberedValue, null> | undefined {
  if (typeof value === 'string') return value.length <= MAX_REMEMBERED_VALUE ? value : undefined;
  if (isRecord(value) && typeof value.digest === 'string' && /^[0-9a-f]{12}$/.test(value.digest))
    return { digest: value.digest };
  return undefined;
}

const NAMED_PATTERN = new RegExp(`^[0-9a-f]{${NAMED.length * NAMED_DIGEST_LENGTH}}$`);

/**
 * The remembered changes of a state file, leniently: an entry this version could not have written
 * is left out (its change is then told as new, which loses nothing).
 */
export function readRemembered(value: unknown): RememberedChange[] {
  if (!Array.isArray(value)) return [];
  const changes: RememberedChange[] = [];
  for (const entry of value.slice(-MAX_REMEMBERED)) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || entry.id.length > MAX_REMEMBERED_ID) continue;
    if (typeof entry.hash !== 'string' || !/^[0-9a-f]{1,64}$/.test(entry.hash)) continue;
    if (typeof entry.named !== 'string' || !NAMED_PATTERN.test(entry.named)) continue;
    const values: RememberedChange['values'] = {};
    const saved = isRecord(entry.values) ? entry.values : {};
    for (const field of VALUED) {
      const read = readValue(saved[field]);
      if (read !== undefined) values[field] = read;
    }
    changes.push({ id: entry.id, hash: entry.hash, values, named: entry.named });
  }
  return changes;
}

/** A stored envelope's marking read back (the Atom feed's), or a plain new one when it has none. */
export function readMarking(value: Record<string, unknown>, event: ChangeEvent): Marking {
  const rejected = isRejected(event);
  if (value.delivery !== 'update') return { delivery: 'new', changed: [], previous: {}, rejected };
  const tracked = new Set<string>(TRACKED_FIELDS);
  const changed = Array.isArray(value.changed)
    ? (value.changed.filter((field) => typeof field === 'string' && tracked.has(field)) as TrackedField[])
    : [];
  const previous: Marking['previous'] = {};
  const stored = isRecord(value.previous) ? value.previous : {};
  for (const field of changed) {
    const was = stored[field];
    if (was === null || typeof was === 'string') previous[field] = was;
  }
  return { delivery: 'update', changed, previous, rejected };
}
