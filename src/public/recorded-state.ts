/**
 * What the public source keeps between snapshots, in the store's head: the diff's memory and which
 * ids the newest snapshot listed. Written by this code, but read back from the user's disk, where
 * anything may stand: a record that does not fit is not trusted, and the next snapshot starts anew.
 */

import * as z from 'zod';
import { apiSchemas } from '../api/schemas.js';
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

const id = z.string().min(1).max(400);
const nullableText = z.string().max(400).nullable();
const count = z.number().int().nonnegative().nullable();

const ModelJson = z.object({
  id,
  baseId: id,
  alias: z.boolean(),
  name: nullableText,
  inputPerMillion: z.number().nonnegative().nullable(),
  outputPerMillion: z.number().nonnegative().nullable(),
  contextLength: count,
  inputModalities: z.array(z.string().max(400)).max(50),
  outputModalities: z.array(z.string().max(400)).max(50),
  created: count,
  expirationDate: nullableText,
  huggingFaceId: nullableText,
});

/** Well past the catalog's growth: ids ever listed, not only today's. */
const MAX_RECORDED_IDS = 100_000;

const MAX_ORIGIN_KEYS = 20_000;

const OriginsJson = z.object({
  takenAt: z.number().int().nonnegative(),
  uploads: z.record(z.string().max(400), z.number().int().nonnegative()),
  orgs: z.array(z.string().max(400)).max(MAX_ORIGIN_KEYS),
  deprecationsRead: z.boolean(),
  deprecations: z.record(z.string().max(400), z.string().max(2_000)),
  pending: z.array(z.unknown()).max(1_000),
});

const FactsJson = z.object({
  type: z.enum(['open_source', 'commercial']).nullable(),
  releaseDate: nullableText,
  popularity: z.object({ downloads: count, likes: count }).nullable(),
});

const StateJson = z.object({
  version: z.literal(1),
  takenAt: z.number().int().nonnegative(),
  models: z.array(ModelJson).max(MAX_RECORDED_IDS),
  seenBases: z.array(id).max(MAX_RECORDED_IDS),
  missingSince: z.array(z.tuple([id, z.number().int().nonnegative()])).max(MAX_RECORDED_IDS),
  removedBases: z.array(id).max(MAX_RECORDED_IDS),
  listed: z.array(id).max(MAX_RECORDED_IDS),
  origins: OriginsJson.nullable(),
  facts: z.array(z.tuple([id, FactsJson])).max(MAX_RECORDED_IDS),
});

/** The state a head holds, or null when it does not fit (then the next snapshot is a first look). */
export function fromJson(value: unknown): RecordedState | null {
  const parsed = StateJson.safeParse(value);
  if (!parsed.success) return null;
  const json = parsed.data;
  return {
    feed: {
      takenAt: json.takenAt,
      models: new Map(json.models.map((model) => [model.id, model])),
      seenBases: new Set(json.seenBases),
      missingSince: new Map(json.missingSince),
      removedBases: new Set(json.removedBases),
    },
    listed: json.listed,
    origins: json.origins === null ? null : originsState(json.origins),
    facts: new Map(json.facts),
  };
}

/** The other origins' memory; a pending event that does not parse as a change is dropped. */
function originsState(json: z.infer<typeof OriginsJson>): OriginsState | null {
  if (Object.keys(json.uploads).length > MAX_ORIGIN_KEYS) return null;
  if (Object.keys(json.deprecations).length > MAX_ORIGIN_KEYS) return null;
  const { ChangeEvent } = apiSchemas();
  const pending = json.pending.flatMap((event) => {
    const parsed = ChangeEvent.safeParse(event);
    return parsed.success ? [parsed.data] : [];
  });
  return { ...json, pending };
}
