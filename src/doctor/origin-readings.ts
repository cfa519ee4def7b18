/**
 * What doctor reads from each public origin's answer: through the same lenient parsers the public
 * source records with, so "usable" here means usable there. Pure.
 */

import { parseModelsDev } from '../public/models-dev.js';
import { parseOpenRouterCatalog } from '../public/openrouter-catalog.js';
import { parseVendorDeprecations } from '../public/vendor-deprecations.js';
import type { AnswerReading } from './origin-outcomes.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The catalog's first page: how many models it lists, and whether more pages follow. */
export function readCatalog(body: unknown, takenAt: number): AnswerReading {
  const parsed = parseOpenRouterCatalog(body, takenAt);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const { models, skipped } = parsed.snapshot;
  if (models.size === 0) return { ok: false, reason: 'it lists no model' };
  const next = (body as { links?: { next?: unknown } }).links?.next;
  const more = typeof next === 'string' && next.trim() ? ' on its first page (more follow)' : '';
  const left = skipped ? ` (${skipped} entries left out)` : '';
  return { ok: true, summary: `${plural(models.size, 'model')} listed${more}${left}` };
}

export function readModelsDev(body: unknown): AnswerReading {
  const parsed = parseModelsDev(body);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const { providers } = parsed.index;
  const models = [...providers.values()].reduce((sum, entries) => sum + entries.size, 0);
  return { ok: true, summary: `${plural(providers.size, 'provider')}, ${plural(models, 'model')}` };
}

/** `/api/models?limit=1`: a list of (at most) one model. */
export function readHuggingFace(body: unknown): AnswerReading {
  if (!Array.isArray(body)) return { ok: false, reason: 'the answer is not a list of models' };
  return { ok: true, summary: 'a list of models, as asked' };
}

export function readDeprecations(body: unknown): AnswerReading {
  const parsed = parseVendorDeprecations(body);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  return { ok: true, summary: plural(parsed.list.records.length, 'deprecation record') };
}
