/**
 * models.dev's `api.json` (providers → models), read for three facts the aggregator's catalog
 * lacks: a model's release date, whether its weights are open, and the vendor's own ids for it.
 * The answer is untrusted and large (145 providers, 5,258 entries on 2026-06-13), so the parse is
 * lenient (a field that does not fit is null) and bounded (providers, models per provider, ids,
 * dates); fields we do not read are never walked, however deep they nest.
 *
 * Matching, per listed catalog id:
 * - models.dev's `openrouter` provider is keyed by the catalog's own ids: its entry for the id (or
 *   for the id's base) is the first choice for the release date and open weights;
 * - the vendor's own provider (`anthropic`, `mistral` for `mistralai`, `alibaba` for `qwen`, see
 *   vendor-match.ts) gives the vendor's ids: those equal to the catalog's name once `.` and `-`
 *   are one (`claude-haiku-4.5` ↔ `claude-haiku-4-5`), or, when none is, the one id that adds only
 *   a date or `-latest` (`claude-sonnet-4` ↔ `claude-sonnet-4-20250514`). Two such ids (two dated
 *   snapshots of one name) are ambiguous and give nothing: a wrong date is worse than none.
 */

import * as z from 'zod';
import { once } from '../once.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';
import { MAX_ID_LENGTH } from './openrouter-catalog.js';
import { modelKey, namesNamespace, vendorKey } from './vendor-match.js';

/**
 * Path of the answer, after the origin's base URL. The origin logs callers whose user agent names
 * certain runtimes (`bun`, `opencode`), so the fetcher should send its own.
 */
export const MODELS_DEV_PATH = '/api.json';

/** Three times the 145 providers of 2026-06. */
export const MAX_PROVIDERS = 500;
/** The largest provider lists ~340 models (its `openrouter` copy). */
export const MAX_MODELS_PER_PROVIDER = 2_000;
/** All providers together: 5,258 on 2026-06-13. */
export const MAX_ENTRIES = 30_000;

/** The provider whose model ids are the aggregator's catalog ids. */
const CATALOG_PROVIDER = 'openrouter';

export interface ModelsDevEntry {
  /** `YYYY-MM-DD` or `YYYY-MM`, as models.dev gives it. */
  readonly releaseDate: string | null;
  readonly openWeights: boolean | null;
}

export interface ModelsDevIndex {
  /** Provider id → (model id → entry), both as models.dev spells them. */
  readonly providers: ReadonlyMap<string, ReadonlyMap<string, ModelsDevEntry>>;
  /** Providers or models left out: no usable id, or beyond the bounds. */
  readonly skipped: number;
}

export type ModelsDevParse =
  | { readonly ok: true; readonly index: ModelsDevIndex }
  | { readonly ok: false; readonly reason: string };

/** What models.dev says about one catalog id. */
export interface ModelFacts {
  readonly releaseDate: string | null;
  readonly openWeights: boolean | null;
  /** The vendor's own ids for the model, as its provider lists them; empty when none matched. */
  readonly vendorIds: readonly string[];
}

/** Built on the first parse: a process that answers from its record never needs them. */
const schemas = once(() => {
  const ReleaseDate = z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/)
    .nullish()
    .catch(null);

  const EntrySchema = z.looseObject({
    release_date: ReleaseDate,
    open_weights: z.boolean().nullish().catch(null),
  });

  const ProviderSchema = z.looseObject({ models: z.record(z.string(), z.unknown()) });

  return { EntrySchema, ProviderSchema };
});

const validId = (id: string) => id.trim() !== '' && id.length <= MAX_ID_LENGTH;

/** Normalises a parsed `api.json` answer. */
export function parseModelsDev(body: unknown): ModelsDevParse {
  const { EntrySchema, ProviderSchema } = schemas();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, reason: 'the answer is not an object of providers' };
  }
  const providers = new Map<string, Map<string, ModelsDevEntry>>();
  let skipped = 0;
  let entries = 0;
  for (const [providerId, raw] of Object.entries(body)) {
    const provider =
      providers.size < MAX_PROVIDERS && validId(providerId) ? ProviderSchema.safeParse(raw) : null;
    if (provider?.success !== true) {
      skipped += 1;
      continue;
    }
    const models = new Map<string, ModelsDevEntry>();
    for (const [modelId, rawEntry] of Object.entries(provider.data.models)) {
      const entry =
        models.size < MAX_MODELS_PER_PROVIDER && entries < MAX_ENTRIES && validId(modelId)
          ? EntrySchema.safeParse(rawEntry)
          : null;
      if (entry?.success !== true) {
        skipped += 1;
        continue;
      }
      entries += 1;
      models.set(modelId, {
        releaseDate: entry.data.release_date ?? null,
        openWeights: entry.data.open_weights ?? null,
      });
    }
    providers.set(providerId, models);
  }
  return { ok: true, index: { providers, skipped } };
}

/** The facts models.dev gives for each listed catalog id; ids it says nothing about are absent. */
export function modelsDevFacts(
  index: ModelsDevIndex,
  catalog: CatalogSnapshot,
): ReadonlyMap<string, ModelFacts> {
  const listedByCatalog = index.providers.get(CATALOG_PROVIDER);
  const vendors = vendorLookup(index);
  const facts = new Map<string, ModelFacts>();
  for (const model of catalog.models.values()) {
    if (model.alias) continue;
    const slash = model.baseId.indexOf('/');
    if (slash <= 0) continue;
    const key = modelKey(model.baseId.slice(slash + 1));
    const vendorMatches = vendors(model.baseId.slice(0, slash)).flatMap((ids) => vendorIdsFor(key, ids));
    const own = listedByCatalog?.get(model.id) ?? listedByCatalog?.get(model.baseId);
    const entries = [...(own === undefined ? [] : [own]), ...vendorMatches.map(([, entry]) => entry)];
    if (entries.length === 0) continue;
    facts.set(model.id, {
      releaseDate: entries.find((entry) => entry.releaseDate !== null)?.releaseDate ?? null,
      openWeights: entries.find((entry) => entry.openWeights !== null)?.openWeights ?? null,
      vendorIds: [...new Set(vendorMatches.map(([id]) => id))].sort(),
    });
  }
  return facts;
}

type VendorEntry = readonly [id: string, entry: ModelsDevEntry];

/** One provider's ids by key, and by key without a snapshot tail (for the ids that have one). */
interface VendorIds {
  readonly equal: ReadonlyMap<string, VendorEntry[]>;
  readonly tailed: ReadonlyMap<string, VendorEntry[]>;
}

/** A snapshot tail of a vendor id: a date or a pointer, not another model. */
const SNAPSHOT_TAIL = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest|0)$/;

/**
 * Catalog namespace → the indexed providers that stand for it, the one spelled alike first. Each
 * namespace and provider is worked out once per call: a catalog has ~60 namespaces, models.dev
 * ~150 providers.
 */
function vendorLookup(index: ModelsDevIndex): (namespace: string) => readonly VendorIds[] {
  const byNamespace = new Map<string, readonly VendorIds[]>();
  const byProvider = new Map<string, VendorIds>();
  return (namespace) => {
    const known = byNamespace.get(namespace);
    if (known !== undefined) return known;
    const key = vendorKey(namespace);
    const matching = [...index.providers.keys()]
      .filter((id) => id !== CATALOG_PROVIDER && namesNamespace(id, namespace))
      .sort((a, b) => Number(vendorKey(b) === key) - Number(vendorKey(a) === key));
    const providers = matching.map((id) => {
      const ids = byProvider.get(id) ?? indexIds(index.providers.get(id)!);
      byProvider.set(id, ids);
      return ids;
    });
    byNamespace.set(namespace, providers);
    return providers;
  };
}

function indexIds(models: ReadonlyMap<string, ModelsDevEntry>): VendorIds {
  const equal = new Map<string, VendorEntry[]>();
  const tailed = new Map<string, VendorEntry[]>();
  const add = (map: Map<string, VendorEntry[]>, key: string, entry: VendorEntry) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [entry]);
    else list.push(entry);
  };
  for (const [id, entry] of models) {
    const key = modelKey(id);
    add(equal, key, [id, entry]);
    const stem = key.replace(SNAPSHOT_TAIL, '');
    if (stem !== key) add(tailed, stem, [id, entry]);
  }
  return { equal, tailed };
}

/**
 * The vendor's ids for a catalog name's key: the equal ones; else those that add only a snapshot
 * tail, when they agree on the release date (two dated snapshots released apart are two models).
 */
function vendorIdsFor(key: string, ids: VendorIds): readonly VendorEntry[] {
  const equal = ids.equal.get(key);
  if (equal !== undefined) return equal;
  const tailed = ids.tailed.get(key) ?? [];
  return new Set(tailed.map(([, entry]) => entry.releaseDate)).size === 1 ? tailed : [];
}
