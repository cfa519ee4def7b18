/**
 * What the public source keeps between snapshots, in the store's head: the diff's memory and which
 * ids the newest snapshot listed. Written by this code, but read back from the user's disk, where
 * anything may stand: a record that does not fit is not trusted, and the next snapshot starts anew.
 */

import { isRecord } from '../is-record.js';
import type { CatalogFeedState } from './diff.js';
import type { OriginFacts } from './enrich.js';
import type { CatalogModel } from './openrouter-catalog.js';
import type { OriginsState } from './origins-feed.js';

export interface RecordedState {
  readonly feed: CatalogFeedState;
  /** Ids in the newest snapshot, in its order. */
  readonly listed: readonly string[];
  /** What the other origins' diff remembers; null before their first read. */
  readonly origins: OriginsState | null;
  /** What the other origins say of each listed id, as last read. */
  readonly facts: ReadonlyMap<string, OriginFacts>;
}

/** The JSON form: Maps and Sets as arrays. */
export interface RecordedStateJson {
  readonly version: 1;
  readonly takenAt: number;
  readonly models: readonly CatalogModel[];
  readonly seenBases: readonly string[];
  readonly missingSince: readonly (readonly [string, number])[];
  readonly removedBases: readonly string[];
  readonly listed: readonly string[];
  readonly origins: OriginsState | null;
  readonly facts: readonly (readonly [string, OriginFacts])[];
}

export function toJson(state: RecordedState): RecordedStateJson {
  return {
    version: 1,
    takenAt: state.feed.takenAt,
    models: [...state.feed.models.values()],
    seenBases: [...state.feed.seenBases],
    missingSince: [...state.feed.missingSince],
    removedBases: [...state.feed.removedBases],
    listed: state.listed,
    origins: state.origins,
    facts: [...state.facts],
  };
}

/**
 * The record is this program's own file, checked on every new process's first read: by plain
 * checks, not a schema library, because a schema's parse of the whole state (some 400 models) cost a
 * one-shot `call` more than the rest of its answer, and its copies more again in garbage
 * collection. The parsed JSON's own objects are kept.
 */

/** Well past the catalog's growth: ids ever listed, not only today's. */
const MAX_RECORDED_IDS = 100_000;
const MAX_ORIGIN_KEYS = 20_000;
const MAX_PENDING = 1_000;
const MAX_TEXT = 400;
const MAX_MODALITIES = 50;

type Check = (value: unknown) => boolean;

const text =
  (max: number, min = 0): Check =>
  (value) =>
    typeof value === 'string' && value.length >= min && value.length <= max;
const id = text(MAX_TEXT, 1);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const count: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0;
const amount: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const list =
  (check: Check, max: number): Check =>
  (value) =>
    Array.isArray(value) && value.length <= max && value.every(check);
const pair =
  (first: Check, second: Check): Check =>
  (value) =>
    Array.isArray(value) && value.length === 2 && first(value[0]) && second(value[1]);
const shape =
  (fields: Record<string, Check>): Check =>
  (value) =>
    isRecord(value) && Object.entries(fields).every(([name, check]) => check(value[name]));
const entries =
  (key: Check, check: Check, max: number): Check =>
  (value) => {
    if (!isRecord(value)) return false;
    const all = Object.entries(value);
    return all.length <= max && all.every(([name, field]) => key(name) && check(field));
  };

const isModel = shape({
  id,
  baseId: id,
  alias: (value) => typeof value === 'boolean',
  name: nullable(text(MAX_TEXT)),
  inputPerMillion: nullable(amount),
  outputPerMillion: nullable(amount),
  contextLength: nullable(count),
  inputModalities: list(text(MAX_TEXT), MAX_MODALITIES),
  outputModalities: list(text(MAX_TEXT), MAX_MODALITIES),
  created: nullable(count),
  expirationDate: nullable(text(MAX_TEXT)),
  huggingFaceId: nullable(text(MAX_TEXT)),
});

const isFacts = shape({
  type: (value) => value === null || value === 'open_source' || value === 'commercial',
  releaseDate: nullable(text(MAX_TEXT)),
  popularity: nullable(shape({ downloads: nullable(count), likes: nullable(count) })),
});

/** A pending event, as far as the feed's rules and re-publishing read it; the rest passes as written. */
const isPendingEvent = shape({
  id: text(MAX_TEXT, 1),
  eventType: text(MAX_TEXT, 1),
  title: text(4_000),
  detectedAt: text(MAX_TEXT, 1),
  model: shape({ slug: text(MAX_TEXT) }),
});

const isOrigins = shape({
  takenAt: count,
  uploads: entries(text(MAX_TEXT), count, MAX_ORIGIN_KEYS),
  orgs: list(text(MAX_TEXT), MAX_ORIGIN_KEYS),
  deprecationsRead: (value) => typeof value === 'boolean',
  deprecations: entries(text(MAX_TEXT), text(2_000), MAX_ORIGIN_KEYS),
  pending: list(isPendingEvent, MAX_PENDING),
});

const isState = shape({
  version: (value) => value === 1,
  takenAt: count,
  models: list(isModel, MAX_RECORDED_IDS),
  seenBases: list(id, MAX_RECORDED_IDS),
  missingSince: list(pair(id, count), MAX_RECORDED_IDS),
  removedBases: list(id, MAX_RECORDED_IDS),
  listed: list(id, MAX_RECORDED_IDS),
  origins: nullable(isOrigins),
  facts: list(pair(id, isFacts), MAX_RECORDED_IDS),
});

/** The state a head holds, or null when it does not fit (then the next snapshot starts anew). */
export function fromJson(value: unknown): RecordedState | null {
  if (!isState(value)) return null;
  const json = value as unknown as RecordedStateJson;
  return {
    feed: {
      takenAt: json.takenAt,
      models: new Map(json.models.map((model) => [model.id, model])),
      seenBases: new Set(json.seenBases),
      missingSince: new Map(json.missingSince),
      removedBases: new Set(json.removedBases),
    },
    listed: json.listed,
    origins: json.origins,
    facts: new Map(json.facts),
  };
}
