import { computeAttention } from '../service-rules/attention.js';
import { uuidV5 } from '../service-rules/content-id.js';
import { derivePricePoints, type Price, type PriceObservation, parsePriceText } from './prices.js';
import type { RawChangeEvent, RawData, RawModel } from './raw-data.js';
import type { ChangeEvent, Model, PriceHistory } from './types.js';

/** The service's resources, derived once from the raw data. */
export interface Dataset {
  /** Every change event, in data order. */
  events: ChangeEvent[];
  /** Models in the catalog (latest status not `removed`), ordered by attention rank. */
  catalog: Model[];
  /** Price history of every catalog model, keyed by history slug (see `historySlug`). */
  histories: Map<string, PriceHistory>;
  /** When price recording began: the earliest `detectedAt` of the data (Unix s). */
  recordingSince: number;
  /** The fixed "now" of attention: 00:00 UTC of the newest catalog snapshot date (Unix s). */
  referenceTime: number;
}

// Fixed namespace of the sandbox's event ids; changing it changes every id.
const EVENT_ID_NAMESPACE = '8c1f4a52-3b7e-4d0a-9f6e-2a5d7c9b1e43';

/** Path segment of a model's history: the id with every `/` replaced by `_` (service.md). */
export function historySlug(modelId: string): string {
  return modelId.replaceAll('/', '_');
}

function toUnixSeconds(dateTime: string): number {
  const ms = Date.parse(dateTime);
  if (Number.isNaN(ms)) throw new Error(`sandbox data: not a date-time: "${dateTime}"`);
  return Math.floor(ms / 1000);
}

// Snapshots carry only a date; taking its last second puts the snapshot after the events
// detected earlier that day, which it already reflects.
function endOfUtcDay(date: string): number {
  return toUnixSeconds(`${date}T23:59:59Z`);
}

// Some publishedAt values are bare dates; service.md types the field as date-time.
function toDateTime(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
}

/** Stable id derived from the event's content; verificationStatus is left out because it changes. */
function eventId(event: RawChangeEvent): string {
  const { eventType, catalogId, detectedAt, title, beforeValue, afterValue, sourceUrl } = event;
  const content = [eventType, catalogId, detectedAt, title, beforeValue, afterValue, sourceUrl];
  return uuidV5(JSON.stringify(content), EVENT_ID_NAMESPACE);
}

function toChangeEvent(event: RawChangeEvent): ChangeEvent {
  return {
    id: eventId(event),
    eventType: event.eventType,
    title: event.title,
    summary: event.summary,
    beforeValue: event.beforeValue,
    afterValue: event.afterValue,
    sourceUrl: event.sourceUrl,
    sourceName: event.sourceName,
    verificationStatus: event.verificationStatus,
    official: event.verificationStatus === 'official',
    detectedAt: toDateTime(event.detectedAt),
    publishedAt: event.publishedAt === null ? null : toDateTime(event.publishedAt),
    model: { ...event.model },
  };
}

function officialEventsAbout(
  model: RawModel,
  events: readonly RawChangeEvent[],
  type: string,
): RawChangeEvent[] {
  return events.filter(
    (event) =>
      event.catalogId === model.id && event.eventType === type && event.verificationStatus === 'official',
  );
}

/** Catalog snapshots plus official price changes; pending ones are only indirect evidence. */
function priceObservations(model: RawModel, events: readonly RawChangeEvent[]): PriceObservation[] {
  const snapshotPrice: Price = { inputPrice: model.inputUsdPer1M, outputPrice: model.outputUsdPer1M };
  const observations: PriceObservation[] = [
    { at: endOfUtcDay(model.priceAsOf), before: null, after: snapshotPrice },
  ];
  const latest = model.catalogStatusLatest;
  if (latest.latestPrice !== undefined) {
    const after = {
      inputPrice: latest.latestPrice.inputUsdPer1M,
      outputPrice: latest.latestPrice.outputUsdPer1M,
    };
    observations.push({ at: endOfUtcDay(latest.asOf), before: null, after });
  }
  for (const event of officialEventsAbout(model, events, 'price_change')) {
    const after = parsePriceText(event.afterValue);
    if (after === null) continue;
    observations.push({
      at: toUnixSeconds(event.detectedAt),
      before: parsePriceText(event.beforeValue),
      after,
    });
  }
  return observations;
}

function parseTokenCount(text: string | null): number | null {
  const trimmed = text?.trim() ?? '';
  return /^\d[\d,]*$/.test(trimmed) ? Number(trimmed.replaceAll(',', '')) : null;
}

/** The snapshot's context length, unless a later official api_change states a new one. */
function currentContextLength(model: RawModel, events: readonly RawChangeEvent[]): number | null {
  let current = { at: endOfUtcDay(model.priceAsOf), value: model.contextLength };
  for (const event of officialEventsAbout(model, events, 'api_change')) {
    const value = parseTokenCount(event.afterValue);
    const at = toUnixSeconds(event.detectedAt);
    if (value !== null && at > current.at) current = { at, value };
  }
  return current.value;
}

function isInCatalog(model: RawModel): boolean {
  return model.catalogStatusLatest.status !== 'removed';
}

export function buildDataset(raw: RawData): Dataset {
  const events = raw.events.map(toChangeEvent);
  if (new Set(events.map((event) => event.id)).size !== events.length) {
    throw new Error('sandbox data: two change events have the same content');
  }
  const recordingSince = Math.min(...raw.events.map((event) => toUnixSeconds(event.detectedAt)));
  const referenceTime = Math.max(
    ...raw.models.map((model) => toUnixSeconds(`${model.catalogStatusLatest.asOf}T00:00:00Z`)),
  );
  const catalogModels = raw.models.filter(isInCatalog);
  const attention = computeAttention(
    catalogModels,
    raw.events.map((event) => ({
      catalogId: event.catalogId,
      vendorSlug: event.model.slug,
      detectedAtSec: toUnixSeconds(event.detectedAt),
      official: event.verificationStatus === 'official',
    })),
    referenceTime,
  );

  const histories = new Map<string, PriceHistory>();
  const catalog: Model[] = [];
  for (const model of catalogModels) {
    const start = Math.max(recordingSince, model.listedAt ?? recordingSince);
    const points = derivePricePoints(start, priceObservations(model, raw.events));
    const slug = historySlug(model.id);
    if (histories.has(slug)) throw new Error(`sandbox data: two models share the history slug ${slug}`);
    histories.set(slug, {
      id: model.id,
      currency: 'USD',
      unit: 'per 1M tokens',
      since: recordingSince,
      points,
    });
    const current = points[points.length - 1];
    const modelAttention = attention.get(model.id);
    if (modelAttention === undefined) throw new Error(`sandbox: no attention computed for ${model.id}`);
    catalog.push({
      id: model.id,
      name: model.name,
      displayName: `${model.vendor}: ${model.name}`,
      vendor: model.vendorSlug,
      type: model.weights === 'open_weights' ? 'open_source' : 'commercial',
      pricing: {
        inputPerMillion: current?.inputPrice ?? null,
        outputPerMillion: current?.outputPrice ?? null,
      },
      contextLength: currentContextLength(model, raw.events),
      listedAt: model.listedAt,
      huggingfaceId: model.huggingFaceId,
      attention: modelAttention,
      url: `https://openrouter.ai/${model.id}`,
    });
  }
  catalog.sort((a, b) => a.attention.rank - b.attention.rank);
  return { events, catalog, histories, recordingSince, referenceTime };
}
