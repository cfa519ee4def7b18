import changesJson from './data/changes.json' with { type: 'json' };
import modelsJson from './data/models.json' with { type: 'json' };
import { type ChangeEvent, EVENT_TYPES, VERIFICATION_STATUSES } from './types.js';

/** Catalog state of a model at the newest snapshot of the aggregator's catalog. */
export interface RawCatalogStatus {
  status: 'listed' | 'deprecated' | 'removed';
  /** Date (YYYY-MM-DD) of the snapshot the status was read from. */
  asOf: string;
  /** Price at that snapshot, present only where it differs from the `priceAsOf` price. */
  latestPrice?: { inputUsdPer1M: number | null; outputUsdPer1M: number | null } | undefined;
}

/** One record of data/models.json (the fields the sandbox uses; see shared data README). */
export interface RawModel {
  id: string;
  name: string;
  vendor: string;
  vendorSlug: string;
  weights: 'commercial' | 'open_weights';
  huggingFaceId: string | null;
  inputUsdPer1M: number | null;
  outputUsdPer1M: number | null;
  contextLength: number | null;
  listedAt: number | null;
  /** Date (YYYY-MM-DD) of the catalog snapshot the price and context length come from. */
  priceAsOf: string;
  catalogStatusLatest: RawCatalogStatus;
}

/** One record of data/changes.json: a ChangeEvent without id/official, plus the model's catalog id. */
export interface RawChangeEvent extends Omit<ChangeEvent, 'id' | 'official'> {
  catalogId: string;
}

export interface RawData {
  models: RawModel[];
  events: RawChangeEvent[];
}

const WEIGHTS = ['commercial', 'open_weights'] as const;
const CATALOG_STATUSES = ['listed', 'deprecated', 'removed'] as const;

// JSON imports type enum fields as plain strings: check them once instead of casting.
function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined)
    throw new Error(`sandbox data: ${where} is "${value}", expected ${allowed.join('|')}`);
  return match;
}

/** The data set bundled with the package, with its enum fields checked. */
export function loadBundledData(): RawData {
  const models = modelsJson.map(
    (model): RawModel => ({
      ...model,
      weights: oneOf(model.weights, WEIGHTS, `${model.id}.weights`),
      catalogStatusLatest: {
        ...model.catalogStatusLatest,
        status: oneOf(model.catalogStatusLatest.status, CATALOG_STATUSES, `${model.id}.catalogStatusLatest`),
      },
    }),
  );
  const events = changesJson.map(
    (event, index): RawChangeEvent => ({
      ...event,
      eventType: oneOf(event.eventType, EVENT_TYPES, `event ${index}.eventType`),
      verificationStatus: oneOf(
        event.verificationStatus,
        VERIFICATION_STATUSES,
        `event ${index}.verificationStatus`,
      ),
    }),
  );
  return { models, events };
}
