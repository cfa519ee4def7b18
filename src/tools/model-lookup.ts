/** Pure lookup of a model by catalog id or Hugging Face id, and close ids for a miss. */

import type { Model } from '../api/schemas.js';

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

/** Edit distance, bounded by the lengths involved (ids are short). */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Up to `max` catalog ids closest to what was asked, compared with each model's id, Hugging Face id
 * and the name after the slash. Distant ids are left out: a suggestion must look like a typo fix.
 */
export function closestIds(models: readonly Model[], rawId: string, max = 3): string[] {
  const id = normalizeId(rawId).slice(0, 200);
  const name = id.slice(id.lastIndexOf('/') + 1);
  const scored = models.map((model) => {
    const candidates = [model.id, model.huggingfaceId ?? ''].filter(Boolean).map((c) => c.toLowerCase());
    let best = Number.POSITIVE_INFINITY;
    for (const candidate of candidates) {
      const candidateName = candidate.slice(candidate.lastIndexOf('/') + 1);
      const whole = levenshtein(id, candidate) / Math.max(id.length, candidate.length, 1);
      const short = levenshtein(name, candidateName) / Math.max(name.length, candidateName.length, 1);
      const contained = name.length >= 3 && candidate.includes(name) ? 0.2 : 1;
      best = Math.min(best, whole, short, contained);
    }
    return { id: model.id, score: best };
  });
  return scored
    .filter((s) => s.score <= 0.5)
    .sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, max)
    .map((s) => s.id);
}
