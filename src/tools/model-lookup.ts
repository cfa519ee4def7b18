/** Pure lookup of a model by catalog id or Hugging Face id, and close ids for a miss. */

import type { Model } from '../api/schemas.js';
import { boundedEditDistance, type Work } from '../text/edit-distance.js';

export type MatchedBy = 'id' | 'huggingfaceId';

/**
 * What people and models paste as an id: "hf:org/name" (as in feed events), a Hugging Face or
 * catalog URL, stray spaces or slashes. All reduce to the bare id, lower-cased.
 */
export function normalizeId(raw: string): string {
  return raw
    .trim()
    .replace(/^hf:/i, '')
    .replace(/^https?:\/\/(www\.)?(huggingface\.co|openrouter\.ai)\//i, '')
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
}

export function findModel(
  models: readonly Model[],
  rawId: string,
): { model: Model; matchedBy: MatchedBy } | undefined {
  const id = normalizeId(rawId);
  const byId = models.find((m) => m.id.toLowerCase() === id);
  if (byId) return { model: byId, matchedBy: 'id' };
  const byHf = models.find((m) => m.huggingfaceId?.toLowerCase() === id);
  return byHf ? { model: byHf, matchedBy: 'huggingfaceId' } : undefined;
}

/**
 * Real catalog ids are under 100 characters. A longer one is nobody's typo, and comparing with it
 * only costs time, so it is never suggested.
 */
const MAX_CANDIDATE_LENGTH = 128;
/** A suggestion must look like a typo fix: at most half of it differs from what was asked. */
const MAX_SCORE = 0.5;
/** What was asked appears whole inside the candidate ("gpt-4o" in "openai/gpt-4o-mini"). */
const CONTAINED_SCORE = 0.2;
/**
 * Hard cap on the Levenshtein cells one search computes, whatever the catalog's shape: 10 to 20 ms
 * here. The 60-model sandbox catalog needs at most 11,000 for any typo tried, so a real catalog
 * ten times its size stays far below. When the cap is reached the best suggestions found so far
 * are given; candidates are visited most promising first, so they are the likeliest anyway.
 */
export const CLOSEST_IDS_BUDGET = 1_000_000;

/**
 * The distinct UTF-16 code units of a text and how often each occurs, as [code, count, code,
 * count, …]: one small array per id, cheap to make for a whole catalog.
 */
type Profile = number[];

/** How often each UTF-16 code unit occurs in a text, indexed by the code unit. */
type Tally = Uint16Array;

function tallyOf(text: string, tally: Tally = new Uint16Array(0x10000)): Tally {
  for (let i = 0; i < text.length; i++) tally[text.charCodeAt(i)]!++;
  return tally;
}

/** Reused while preparing a catalog: a 128 KiB tally per id would cost more than the counting. */
const scratch: Tally = new Uint16Array(0x10000);

function profile(text: string): Profile {
  tallyOf(text, scratch);
  const pairs: Profile = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (scratch[code] === 0) continue;
    pairs.push(code, scratch[code]!);
    scratch[code] = 0;
  }
  return pairs;
}

/** One id (catalog or Hugging Face) of one model, lower-cased, with what the bounds need. */
interface Candidate {
  model: number;
  modelId: string;
  text: string;
  name: string;
  textProfile: Profile;
  nameProfile: Profile;
}

function nameOf(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1);
}

/**
 * Keyed by the items array itself: the API client returns the same array from its cache for the
 * TTL, so a run of misses against one catalog prepares it once, and a new catalog (a new array)
 * is prepared afresh while the old one is left to the garbage collector.
 */
const preparedCatalogs = new WeakMap<readonly Model[], readonly Candidate[]>();

/** The catalog's lower-cased ids and their profiles, made once per catalog snapshot. */
export function prepareCatalog(models: readonly Model[]): readonly Candidate[] {
  const known = preparedCatalogs.get(models);
  if (known) return known;
  const candidates: Candidate[] = [];
  models.forEach((model, index) => {
    const id = model.id.toLowerCase();
    const huggingfaceId = model.huggingfaceId?.toLowerCase();
    for (const text of huggingfaceId && huggingfaceId !== id ? [id, huggingfaceId] : [id]) {
      if (text === '' || text.length > MAX_CANDIDATE_LENGTH) continue;
      const name = nameOf(text);
      const textProfile = profile(text);
      const nameProfile = name === text ? textProfile : profile(name);
      candidates.push({ model: index, modelId: model.id, text, name, textProfile, nameProfile });
    }
  });
  preparedCatalogs.set(models, candidates);
  return candidates;
}

/**
 * A lower bound of the edit distance from the character counts alone (the bag distance): every
 * character one text has and the other lacks costs at least one edit. Linear, where the distance
 * itself is quadratic.
 */
function bagDistance(tally: Tally, length: number, other: Profile, otherLength: number): number {
  let common = 0;
  for (let i = 0; i < other.length; i += 2) common += Math.min(tally[other[i]!]!, other[i + 1]!);
  return Math.max(length, otherLength) - common;
}

interface Query {
  id: string;
  name: string;
  idTally: Tally;
  nameTally: Tally;
}

/** A candidate with the cheap facts: whether it contains the name, and lower bounds of both ratios. */
interface Bounded {
  candidate: Candidate;
  contained: boolean;
  whole: number;
  short: number;
  bound: number;
}

function bound(query: Query, candidate: Candidate): Bounded {
  const contained = query.name.length >= 3 && candidate.text.includes(query.name);
  const wholeLength = Math.max(query.id.length, candidate.text.length, 1);
  const shortLength = Math.max(query.name.length, candidate.name.length, 1);
  const whole =
    bagDistance(query.idTally, query.id.length, candidate.textProfile, candidate.text.length) / wholeLength;
  const short =
    bagDistance(query.nameTally, query.name.length, candidate.nameProfile, candidate.name.length) /
    shortLength;
  return {
    candidate,
    contained,
    whole,
    short,
    bound: Math.min(contained ? CONTAINED_SCORE : 1, whole, short),
  };
}

/** Distance over length when it is at most `limit`, else Infinity; computed only as far as needed. */
function ratio(a: string, b: string, lowerBound: number, limit: number, work: Work): number {
  if (lowerBound > limit) return Number.POSITIVE_INFINITY;
  const length = Math.max(a.length, b.length, 1);
  // The epsilon keeps a limit that is itself a ratio (k/length) from rounding one below k.
  const allowed = Math.floor(limit * length + 1e-9);
  const distance = boundedEditDistance(a, b, allowed, work);
  return distance <= allowed ? distance / length : Number.POSITIVE_INFINITY;
}

/** The candidate's score (lower is closer) when it is at most `limit`, else Infinity. */
function score(query: Query, entry: Bounded, limit: number, work: Work): number {
  const { candidate } = entry;
  let best = entry.contained ? CONTAINED_SCORE : Number.POSITIVE_INFINITY;
  best = Math.min(best, ratio(query.id, candidate.text, entry.whole, Math.min(best, limit), work));
  // Without a slash on either side the short comparison is the whole one again.
  if (query.name !== query.id || candidate.name !== candidate.text) {
    best = Math.min(best, ratio(query.name, candidate.name, entry.short, Math.min(best, limit), work));
  }
  return best <= limit ? best : Number.POSITIVE_INFINITY;
}

interface Suggestion {
  model: number;
  id: string;
  score: number;
}

function closer(a: Suggestion, b: Suggestion): number {
  return a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The best `max` suggestions so far, one per model, closest first. */
function keep(best: Suggestion[], found: Suggestion, max: number): Suggestion[] {
  const same = best.find((s) => s.model === found.model);
  if (same && same.score <= found.score) return best;
  return [...best.filter((s) => s !== same), found].sort(closer).slice(0, max);
}

/**
 * Up to `max` catalog ids closest to what was asked, compared with each model's id, Hugging Face id
 * and the name after the slash. Distant ids are left out: a suggestion must look like a typo fix.
 *
 * Bounded work, whatever the catalog: cheap lower bounds drop most candidates and order the rest
 * most promising first; each distance stops as soon as it cannot matter; the search ends once no
 * remaining candidate can beat the suggestions found, or when `budget` cells are spent.
 * `work` counts the cells computed, for tests and measurements.
 */
export function closestIds(
  models: readonly Model[],
  rawId: string,
  max = 3,
  work: Work = { cells: 0 },
  budget = CLOSEST_IDS_BUDGET,
): string[] {
  if (max < 1) return [];
  const id = normalizeId(rawId).slice(0, 200);
  const name = nameOf(id);
  const query: Query = { id, name, idTally: tallyOf(id), nameTally: tallyOf(name) };
  const entries = prepareCatalog(models)
    .map((candidate) => bound(query, candidate))
    .filter((entry) => entry.bound <= MAX_SCORE)
    .sort((a, b) => a.bound - b.bound);
  let best: Suggestion[] = [];
  for (const entry of entries) {
    const worstKept = best.length === max ? (best[max - 1]?.score ?? MAX_SCORE) : MAX_SCORE;
    if (entry.bound > worstKept || work.cells >= budget) break;
    const found = score(query, entry, worstKept, work);
    if (found <= worstKept) {
      best = keep(best, { model: entry.candidate.model, id: entry.candidate.modelId, score: found }, max);
    }
  }
  return best.map((s) => s.id);
}
