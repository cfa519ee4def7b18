/**
 * The service's catalog (`Model`), built from the newest snapshot of the aggregator's catalog and
 * the feed recorded on this machine. Attention is the service's formula (service-rules/attention.ts)
 * on public signals only: registration novelty from `created`, news from the feed's own events about
 * the model, opinions from the likes of its open repository where the catalog links one (else the
 * feed's events about it that are not the vendor's word), vendor activity from the feed's events
 * about its vendor. Aliases are pointers to another model, not models, so they are resolved, never
 * listed.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { type Attention, computeAttention } from '../service-rules/attention.js';
import { vendorOf } from './model-id.js';
import type { CatalogModel } from './openrouter-catalog.js';
import type { RecordedState } from './recorded-state.js';

/** The service's Model, with what this source always knows typed as such. */
export type PublicModel = {
  id: string;
  name: string;
  displayName: string;
  vendor: string;
  /** From open weights (models.dev) or a linked open repository; null when no origin says. */
  type: 'commercial' | 'open_source' | null;
  pricing: { inputPerMillion: number | null; outputPerMillion: number | null };
  contextLength: number | null;
  listedAt: number | null;
  huggingfaceId: string | null;
  attention: { rank: number; score: number; newsCount: number; opinions: number };
  url: string;
};

export interface PublicCatalog {
  /** Ordered by attention rank. */
  readonly models: readonly PublicModel[];
  /** Listed id → its model, aliases included (an alias resolves to the model it points at). */
  readonly byId: ReadonlyMap<string, PublicModel>;
}

export function buildCatalog(
  state: RecordedState,
  events: readonly ChangeEvent[],
  referenceSec: number,
): PublicCatalog {
  const listed = state.listed.flatMap((id) => {
    const model = state.feed.models.get(id);
    return model === undefined ? [] : [model];
  });
  const own = listed.filter((model) => !model.alias);
  const attention = computeAttention(
    own.map((model) => ({
      id: model.id,
      vendorSlug: vendorOf(model.id),
      listedAt: model.created,
      opinions: state.facts.get(model.id)?.popularity?.likes ?? undefined,
    })),
    events.map((event) => ({
      catalogId: typeof event.catalogId === 'string' ? event.catalogId : '',
      vendorSlug: event.model.slug,
      detectedAtSec: Math.floor(Date.parse(event.detectedAt) / 1000) || 0,
      official: event.verificationStatus === 'official',
    })),
    referenceSec,
  );
  const ranked = own.flatMap((model) => {
    const found = attention.get(model.id);
    return found === undefined ? [] : [{ model, attention: found }];
  });
  ranked.sort((a, b) => a.attention.rank - b.attention.rank);
  const models: PublicModel[] = [];
  const byId = new Map<string, PublicModel>();
  for (const { model, attention: found } of ranked) {
    const entry = toModel(model, found, state.facts.get(model.id)?.type ?? null);
    models.push(entry);
    byId.set(model.id, entry);
  }
  for (const alias of listed) {
    const target = alias.alias ? byId.get(alias.baseId) : undefined;
    if (target !== undefined) byId.set(alias.id, target);
  }
  return { models, byId };
}

function toModel(model: CatalogModel, attention: Attention, type: PublicModel['type']): PublicModel {
  const fullName = model.name ?? model.id;
  // The aggregator names models "Vendor: Model"; the service's name is the model's own.
  const colon = fullName.indexOf(': ');
  return {
    id: model.id,
    name: colon > 0 ? fullName.slice(colon + 2) : fullName,
    displayName: fullName,
    vendor: vendorOf(model.id),
    type,
    pricing: { inputPerMillion: model.inputPerMillion, outputPerMillion: model.outputPerMillion },
    contextLength: model.contextLength,
    listedAt: model.created,
    huggingfaceId: model.huggingFaceId,
    attention,
    url: `https://openrouter.ai/${model.id}`,
  };
}
