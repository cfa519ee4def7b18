/**
 * The feed's events from the origins beside the aggregator's catalog, derived run by run like the
 * catalog's own diff (diff.ts), with a small state that tells new from seen.
 *
 * Uploads to the open model repository (`open_source_surge`):
 * - one event per base model (huggingface.ts collapses re-uploads and quantisations), the first
 *   time an upload of it created in the last UPLOAD_MEMORY_S is listed;
 * - an organisation read for the first time (the very first run, or one the catalog newly links)
 *   is a first look: only uploads of the last 30 days are events, dated from their creation; the
 *   rest is the baseline. The longer window afterwards catches a repository created privately
 *   weeks before it was made public on release day;
 * - a base the catalog linked more than UPLOAD_MEMORY_S ago is never new, whatever is uploaded;
 * - `official` when the organisation is the vendor's own (vendor-match.ts), else `pending`.
 *
 * Vendor-cited deprecations (`deprecation`):
 * - an event per matched catalog base id (or one without a catalog id when none matched) when a
 *   record's announcement (dates, replacement) is new or changed; the first read of the list is a
 *   baseline except for ends still ahead or within the last 30 days;
 * - the same change seen by two origins is one event: a pending catalog `deprecation` of a base id
 *   (an expiration date set or moved, a removal) that a vendor record with a vendor page matches
 *   is published again under its own id, `official`, citing the vendor's page, and the record
 *   makes no event of its own for that model. A catalog event no record confirms yet is
 *   remembered (at most MAX_PENDING, for UPLOAD_MEMORY_S), so a record that appears in a later run
 *   re-publishes that earlier id, unless the catalog took it back meanwhile (the model listed
 *   again, the date withdrawn). A variant's expiration (`…:free` going away) is about the
 *   aggregator's listing, not the vendor's model, and is never merged.
 * A withdrawn announcement (a record whose dates are removed) gives no event.
 *
 * GitHub releases (`api_change` from vendors' SDK repositories) are not read.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { isoSeconds } from './catalog-events.js';
import { FIRST_LOOK_WINDOW_S } from './diff.js';
import {
  type HuggingFaceListings,
  type HuggingFaceRepo,
  namespaceOfOrg,
  orgOf,
  uploadKey,
} from './huggingface.js';
import { baseIdOf, vendorOf } from './model-id.js';
import { type ModelsDevIndex, modelsDevFacts } from './models-dev.js';
import type { CatalogModel, CatalogSnapshot } from './openrouter-catalog.js';
import {
  confirmedDeprecation,
  DEPRECATIONS_SOURCE_NAME,
  deprecationEvent,
  describeDeprecation,
  type EventSubject,
  uploadEvent,
} from './origin-events.js';
import {
  announcesEnd,
  type DeprecationList,
  type DeprecationRecord,
  deprecationMatcher,
} from './vendor-deprecations.js';
import { sameVendor } from './vendor-match.js';

const DAY_S = 24 * 3600;
/** How long an upload counts as new, and how long its base is remembered after it. */
export const UPLOAD_MEMORY_S = 90 * DAY_S;
/** Upload bases remembered; far above what 20 organisations upload in 90 days. */
export const MAX_SEEN_UPLOADS = 2_000;
/** Unconfirmed catalog deprecations remembered (the catalog shows ~2 a day at most). */
export const MAX_PENDING = 200;

/** What the next run needs to tell new from seen; small, plain JSON. */
export interface OriginsState {
  /** Unix seconds of the run that wrote it. */
  readonly takenAt: number;
  /** Upload base keys → unix seconds of their newest upload. */
  readonly uploads: Readonly<Record<string, number>>;
  /** Organisations (lower case) whose newest uploads were read at least once. */
  readonly orgs: readonly string[];
  /** Whether the deprecation list was read at least once (its first read is a baseline). */
  readonly deprecationsRead: boolean;
  /** `provider/model` of each record announcing an end → its announcement, as last read. */
  readonly deprecations: Readonly<Record<string, string>>;
  /** Pending catalog deprecations of base ids that no vendor record confirmed yet. */
  readonly pending: readonly ChangeEvent[];
}

export interface OriginInputs {
  readonly catalog: CatalogSnapshot;
  /** Each origin is absent when it is off or its fetch failed: what it showed before is kept. */
  readonly modelsDev?: ModelsDevIndex | undefined;
  readonly huggingFace?: HuggingFaceListings | undefined;
  readonly deprecations?: DeprecationList | undefined;
}

export interface OriginsDiff {
  readonly state: OriginsState;
  /** In a stable order: by date, then catalog id, then type. */
  readonly events: ChangeEvent[];
  /**
   * Ids of this run's catalog events that a vendor's notice already published as its own event:
   * the same change, seen second by the catalog, is not published again.
   */
  readonly absorbed: ReadonlySet<string>;
}

/**
 * The events of this run (`takenAt`, unix seconds) from the origins, given the catalog events the
 * same run derived (diff.ts), and the state after it.
 */
export function deriveOriginEvents(
  previous: OriginsState | null,
  inputs: OriginInputs,
  catalogEvents: readonly ChangeEvent[],
  takenAt: number,
): OriginsDiff {
  const uploads = deriveUploads(previous, inputs, takenAt);
  const deprecations = deriveDeprecations(previous, inputs, catalogEvents, takenAt);
  return {
    state: {
      takenAt,
      uploads: uploads.seen,
      orgs: uploads.orgs,
      deprecationsRead: deprecations.read,
      deprecations: deprecations.announcements,
      pending: deprecations.pending,
    },
    events: ordered([...uploads.events, ...deprecations.events]),
    absorbed: deprecations.absorbed,
  };
}

function deriveUploads(previous: OriginsState | null, inputs: OriginInputs, takenAt: number) {
  const seen = new Map(Object.entries(previous?.uploads ?? {}));
  const knownOrgs = new Set(previous?.orgs ?? []);
  const events: ChangeEvent[] = [];
  const listings = inputs.huggingFace;
  if (listings !== undefined) {
    const linked = linkedBases(inputs.catalog, listings);
    for (const [key, repos] of groupByBase(listings)) {
      const firstLook =
        previous === null || repos.every((repo) => !knownOrgs.has(orgOf(repo.id)!.toLowerCase()));
      const window = firstLook ? FIRST_LOOK_WINDOW_S : UPLOAD_MEMORY_S;
      const recent = repos.filter((repo) => isRecent(repo.createdAt, takenAt, window));
      const newestAt = Math.max(seen.get(key) ?? 0, ...repos.map((repo) => repo.createdAt ?? 0));
      const model = linked.get(key) ?? null;
      if (!seen.has(key) && recent.length > 0 && !longListed(model, takenAt)) {
        events.push(upload(key, recent, model, inputs.catalog, firstLook ? null : takenAt));
      }
      seen.set(key, newestAt);
    }
    for (const org of listings.answeredOrgs) knownOrgs.add(org);
  }
  const kept = [...seen]
    .filter(([, newestAt]) => takenAt - newestAt <= UPLOAD_MEMORY_S)
    .sort(([keyA, a], [keyB, b]) => b - a || (keyA < keyB ? -1 : 1))
    .slice(0, MAX_SEEN_UPLOADS);
  return { seen: Object.fromEntries(kept), orgs: [...knownOrgs].sort(), events };
}

/**
 * A base the catalog has listed for longer than an upload counts as new: a fresh upload of it (a
 * quantisation the vendor adds months later) is not a new open model, even when the listings never
 * showed its older repositories.
 */
function longListed(model: CatalogModel | null, takenAt: number): boolean {
  return model?.created != null && takenAt - model.created > UPLOAD_MEMORY_S;
}

function isRecent(createdAt: number | null, takenAt: number, window: number): boolean {
  // A creation time a day ahead of our clock is not believed.
  return createdAt !== null && createdAt <= takenAt + DAY_S && takenAt - createdAt <= window;
}

function groupByBase(listings: HuggingFaceListings): Map<string, HuggingFaceRepo[]> {
  const groups = new Map<string, HuggingFaceRepo[]>();
  for (const repo of listings.repos.values()) {
    const key = uploadKey(repo.id, listings.repos);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [repo]);
    else group.push(repo);
  }
  return groups;
}

/** Upload base key → the catalog model linking to it (its base listing first, then the smallest id). */
function linkedBases(catalog: CatalogSnapshot, listings: HuggingFaceListings): Map<string, CatalogModel> {
  const linked = new Map<string, CatalogModel>();
  for (const model of catalog.models.values()) {
    if (model.alias || orgOf(model.huggingFaceId) === null) continue;
    const key = uploadKey(model.huggingFaceId!, listings.repos);
    const known = linked.get(key);
    if (known === undefined || rank(model) < rank(known)) linked.set(key, model);
  }
  return linked;
}

function rank(model: CatalogModel): string {
  return `${model.id === model.baseId ? 0 : 1}${model.baseId}`;
}

/** `detectedAt` null: a first look, dated from the upload's creation. */
function upload(
  key: string,
  recent: HuggingFaceRepo[],
  linked: CatalogModel | null,
  catalog: CatalogSnapshot,
  detectedAt: number | null,
): ChangeEvent {
  const sorted = [...recent].sort(
    (a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || (a.id < b.id ? -1 : 1),
  );
  const shown = sorted.find((repo) => repo.id.toLowerCase() === key) ?? sorted[0]!;
  const org = orgOf(shown.id)!;
  const namespace = namespaceOfOrg(org, catalog);
  const subject: EventSubject =
    linked === null
      ? { catalogId: null, slug: namespace ?? org.toLowerCase(), name: shown.id.slice(org.length + 1) }
      : { catalogId: linked.baseId, slug: vendorOf(linked.baseId), name: linked.name };
  return uploadEvent({
    subject,
    baseKey: key,
    repoId: shown.id,
    org,
    vendorOrg: namespace !== null && sameVendor(org, namespace),
    siblings: sorted.filter((repo) => repo !== shown).map((repo) => repo.id),
    createdAt: shown.createdAt,
    detectedAt: detectedAt ?? shown.createdAt!,
  });
}

function deriveDeprecations(
  previous: OriginsState | null,
  inputs: OriginInputs,
  catalogEvents: readonly ChangeEvent[],
  takenAt: number,
) {
  const list = inputs.deprecations;
  const events: ChangeEvent[] = [];
  // A removal the catalog took back (the model listed again, the date withdrawn) is nothing to confirm.
  const takenBack = new Set(catalogEvents.filter(withdraws).map((event) => event.catalogId));
  const remembered = (previous?.pending ?? []).filter(
    (event) => takenAt - unixOf(event.detectedAt) <= UPLOAD_MEMORY_S && !takenBack.has(event.catalogId),
  );
  const unconfirmed = [...remembered, ...catalogEvents.filter(confirmable)];
  const absorbed = new Set<string>();
  if (list === undefined) {
    return {
      read: previous?.deprecationsRead ?? false,
      announcements: previous?.deprecations ?? {},
      pending: unconfirmed.slice(-MAX_PENDING),
      events,
      absorbed,
    };
  }

  const facts = inputs.modelsDev === undefined ? undefined : modelsDevFacts(inputs.modelsDev, inputs.catalog);
  const matcher = deprecationMatcher(inputs.catalog, facts);
  const announcing = list.records.filter(announcesEnd);
  const matches = new Map(announcing.map((record) => [record, matcher.match(record)]));
  const confirming = confirmingRecords(matches);

  const before = previous?.deprecationsRead === true ? previous.deprecations : null;
  const announcedBefore = (record: DeprecationRecord) => {
    const recordId = `${record.provider}/${record.model}`;
    return (
      before !== null && Object.hasOwn(before, recordId) && before[recordId] === describeDeprecation(record)
    );
  };

  // One event per change: a catalog event a vendor record confirms is published again as official;
  // one about an end the vendor's notice already published as its own event is that event.
  const confirmed = new Set<string>();
  const pending: ChangeEvent[] = [];
  for (const event of unconfirmed) {
    const base = String(event.catalogId);
    const record = confirming.get(base);
    if (record === undefined) pending.push(event);
    else if (announcedBefore(record)) absorbed.add(event.id);
    else {
      events.push(confirmedDeprecation(event, record));
      confirmed.add(base);
    }
  }

  const announcements = new Map<string, string>();
  for (const [record, bases] of matches) {
    const recordId = `${record.provider}/${record.model}`;
    const announcement = describeDeprecation(record);
    announcements.set(recordId, announcement);
    const last = before === null ? undefined : Object.hasOwn(before, recordId) ? before[recordId] : undefined;
    if (last === announcement) continue;
    if (before === null && !endIsRecent(record, takenAt)) continue;
    const detected = { record, before: last ?? null, detectedAt: takenAt };
    if (bases.length === 0) {
      // Filed under the catalog namespace its vendor stands for, so the vendor filter finds it.
      const slug = matcher.namespaceOf(record.provider) ?? record.provider;
      events.push(deprecationEvent({ ...detected, subject: { catalogId: null, slug, name: record.name } }));
    }
    for (const base of bases.filter((id) => !confirmed.has(id))) {
      const model = inputs.catalog.models.get(base);
      const subject = { catalogId: base, slug: vendorOf(base), name: model?.name ?? null };
      events.push(deprecationEvent({ ...detected, subject }));
    }
  }
  return {
    read: true,
    announcements: Object.fromEntries(announcements),
    pending: pending.slice(-MAX_PENDING),
    events,
    absorbed,
  };
}

/**
 * A pending catalog deprecation a vendor could confirm: about a base id, announcing an end (an
 * expiration date set or moved, or a removal), not already merged with another origin.
 */
function confirmable(event: ChangeEvent): boolean {
  const id = event.catalogId;
  return (
    event.eventType === 'deprecation' &&
    event.verificationStatus === 'pending' &&
    event.sourceName !== DEPRECATIONS_SOURCE_NAME &&
    typeof id === 'string' &&
    baseIdOf(id) === id &&
    (event.afterValue === 'removed' || event.afterValue?.startsWith('expires ') === true)
  );
}

function withdraws(event: ChangeEvent): boolean {
  return (
    event.eventType === 'deprecation' &&
    (event.afterValue === 'listed' || event.afterValue === 'no expiration date')
  );
}

/** Base id → the record that confirms its end: one citing a vendor page, a firm shutdown date first. */
function confirmingRecords(
  matches: ReadonlyMap<DeprecationRecord, readonly string[]>,
): Map<string, DeprecationRecord> {
  const byBase = new Map<string, DeprecationRecord>();
  for (const [record, bases] of matches) {
    if (record.sourceUrl === null) continue;
    for (const base of bases) {
      const known = byBase.get(base);
      if (known === undefined || (known.shutdownOn === null && record.shutdownOn !== null))
        byBase.set(base, record);
    }
  }
  return byBase;
}

/** An end still ahead, or dated within the first look's window before `takenAt`. */
function endIsRecent(record: DeprecationRecord, takenAt: number): boolean {
  const since = isoSeconds(takenAt - FIRST_LOOK_WINDOW_S).slice(0, 10);
  return [record.deprecatedOn, record.shutdownOn, record.earliestShutdownOn].some(
    (date) => date !== null && date >= since,
  );
}

function unixOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

/**
 * One run's events for the store: the catalog's, each replaced in place by the origins' event of
 * the same id (a pending deprecation now official), then the origins' other events.
 */
export function mergeRunEvents(
  catalogEvents: readonly ChangeEvent[],
  originEvents: readonly ChangeEvent[],
  absorbed: ReadonlySet<string> = new Set(),
): ChangeEvent[] {
  const byId = new Map(originEvents.map((event) => [event.id, event]));
  const merged = catalogEvents
    .filter((event) => !absorbed.has(event.id))
    .map((event) => byId.get(event.id) ?? event);
  const replaced = new Set(catalogEvents.map((event) => event.id));
  return [...merged, ...originEvents.filter((event) => !replaced.has(event.id))];
}

function ordered(events: ChangeEvent[]): ChangeEvent[] {
  const key = (event: ChangeEvent) =>
    `${event.detectedAt}\u0000${String(event.catalogId ?? '')}\u0000${event.eventType}\u0000${event.id}`;
  return events.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
