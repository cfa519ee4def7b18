/**
 * Listings in the shape of the aggregator's `GET /api/v1/models` answer, written for these tests.
 * Ids, prices and dates are taken from its public catalog as committed by meni432/ModelGraveyard
 * (`data/raw/openrouter-models.json`, 2026-08-20 to 2026-08-22) unless a test says otherwise.
 */

import { type CatalogSnapshot, parseOpenRouterCatalog } from '../../src/public/openrouter-catalog.js';

export interface ListingFacts {
  id: string;
  name?: string;
  prompt?: string;
  completion?: string;
  context?: number | null;
  input?: string[];
  output?: string[];
  created?: number;
  expiration?: string | null;
  hf?: string | null;
  aliasTarget?: string;
}

/** 2026-08-20T01:26Z, when the first of the real snapshots was taken. */
export const T0 = Date.parse('2026-08-20T01:26:00Z') / 1000;
export const DAY = 24 * 3600;

export function listing(facts: ListingFacts): Record<string, unknown> {
  const canonical = facts.id.replace(/^~/, '').replace(/:.*$/, '');
  return {
    id: facts.id,
    canonical_slug: canonical,
    hugging_face_id: facts.hf ?? '',
    name: facts.name ?? facts.id,
    created: facts.created ?? T0 - 200 * DAY,
    description: 'A model.',
    context_length: facts.context === undefined ? 131072 : facts.context,
    architecture: {
      modality: 'text->text',
      input_modalities: facts.input ?? ['text'],
      output_modalities: facts.output ?? ['text'],
      tokenizer: 'Other',
      instruct_type: null,
    },
    pricing: { prompt: facts.prompt ?? '0.0000003', completion: facts.completion ?? '0.0000011' },
    top_provider: { context_length: 65536, max_completion_tokens: null, is_moderated: false },
    per_request_limits: null,
    supported_parameters: ['max_tokens'],
    default_parameters: {},
    supported_voices: null,
    knowledge_cutoff: null,
    expiration_date: facts.expiration ?? null,
    links: { details: `/api/v1/models/${canonical}/endpoints` },
    ...(facts.aliasTarget === undefined ? {} : { alias_target: { name: 'target', slug: facts.aliasTarget } }),
  };
}

export function answer(models: unknown[]): Record<string, unknown> {
  return { data: models, total_count: models.length, links: { next: null } };
}

/** The normalised snapshot of `models`, taken `hoursAfterT0` hours after T0. */
export function snapshot(hoursAfterT0: number, models: ListingFacts[]): CatalogSnapshot {
  const parsed = parseOpenRouterCatalog(answer(models.map(listing)), T0 + hoursAfterT0 * 3600);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.snapshot;
}
