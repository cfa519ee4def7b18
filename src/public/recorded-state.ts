/**
 * What the public source keeps between snapshots, in the store's head: the diff's memory and which
 * ids the newest snapshot listed. Written by this code, but read back from the user's disk, where
 * anything may stand: a record that does not fit is not trusted, and the next snapshot starts anew.
 */

import * as z from 'zod';
import type { CatalogFeedState } from './diff.js';
import type { CatalogModel } from './openrouter-catalog.js';

export interface RecordedState {
  readonly feed: CatalogFeedState;
  /** Ids in the newest snapshot, in its order. */
  readonly listed: readonly string[];
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

const StateJson = z.object({
  version: z.literal(1),
  takenAt: z.number().int().nonnegative(),
  models: z.array(ModelJson).max(MAX_RECORDED_IDS),
  seenBases: z.array(id).max(MAX_RECORDED_IDS),
  missingSince: z.array(z.tuple([id, z.number().int().nonnegative()])).max(MAX_RECORDED_IDS),
  removedBases: z.array(id).max(MAX_RECORDED_IDS),
  listed: z.array(id).max(MAX_RECORDED_IDS),
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
  };
}
