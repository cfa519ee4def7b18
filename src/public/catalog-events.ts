/**
 * Change events in the service's shape, built from what the aggregator's catalog shows. Everything
 * here comes from an intermediary catalog alone, so each event is `pending`. Ids are name-based
 * UUIDs of the event's type, model, snapshot time and values: deriving the feed again from the
 * same snapshots gives the same ids, so a store can replay or merge without duplicates.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { uuidV5 } from '../service-rules/content-id.js';
import { vendorOf } from './model-id.js';
import type { CatalogModel } from './openrouter-catalog.js';

/** The name space of this origin's event ids (a random UUID, fixed once). */
const EVENT_NAMESPACE = '6f0d3c4e-2b8a-4f1e-9c57-0a4be3d21f86';

export const CATALOG_SOURCE_NAME = 'OpenRouter public catalog (GET /api/v1/models)';

export type CatalogEventType = 'new_model' | 'price_change' | 'deprecation' | 'api_change';

export interface CatalogEventFacts {
  readonly eventType: CatalogEventType;
  /** The listed id the event is about (a variant's own id when only the variant changed). */
  readonly model: Pick<CatalogModel, 'id' | 'baseId' | 'name'>;
  /** Unix seconds of the snapshot that showed the change; part of the id. */
  readonly snapshotAt: number;
  /** Unix seconds the event is dated: the snapshot's time, or the registration for a first look. */
  readonly detectedAt: number;
  readonly publishedAt?: number | null;
  readonly title: string;
  readonly summary: string;
  readonly beforeValue: string | null;
  readonly afterValue: string | null;
}

export function catalogEvent(facts: CatalogEventFacts): ChangeEvent {
  const { model } = facts;
  const idName = JSON.stringify([
    facts.eventType,
    model.id,
    facts.snapshotAt,
    facts.beforeValue,
    facts.afterValue,
  ]);
  return {
    id: uuidV5(idName, EVENT_NAMESPACE),
    eventType: facts.eventType,
    title: facts.title,
    summary: facts.summary,
    beforeValue: facts.beforeValue,
    afterValue: facts.afterValue,
    sourceUrl: `https://openrouter.ai/${model.baseId}`,
    sourceName: CATALOG_SOURCE_NAME,
    verificationStatus: 'pending',
    official: false,
    detectedAt: isoSeconds(facts.detectedAt),
    publishedAt: facts.publishedAt == null ? null : isoSeconds(facts.publishedAt),
    model: { slug: vendorOf(model.baseId), name: model.name, company: null, accentColor: null },
    catalogId: model.id,
  };
}

/** ISO 8601 to the second, as the service writes its times. */
export function isoSeconds(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** `in $0.3 / out $1.1 per 1M tokens`, the sample feed's wording; `variable` when unpriced. */
export function describePrice(model: Pick<CatalogModel, 'inputPerMillion' | 'outputPerMillion'>): string {
  return `in ${dollars(model.inputPerMillion)} / out ${dollars(model.outputPerMillion)} per 1M tokens`;
}

function dollars(perMillion: number | null): string {
  return perMillion === null ? 'variable' : `$${perMillion}`;
}
