/**
 * Vendor-cited deprecations from modeldeprecations.dev (`GET /api/v1/models.json`): one record per
 * vendor model, each date cited to the vendor's own page. The answer is
 * `{generatedAt, asOf, count, models: [{provider, model, name, aliases, deprecated_on, shutdown_on,
 * earliest_shutdown_on, status, replacements, sources, …}]}`; parsed leniently and bounded like the
 * other origins.
 *
 * Matching a record to catalog ids (base ids only: a variant goes with its base):
 * - the record's provider must stand for the catalog id's namespace (vendor-match.ts:
 *   `mistral` → `mistralai`, `alibaba` → `qwen`, `bedrock` → `amazon`);
 * - and one of these must hold: the record's id or one of its aliases equals the catalog's model
 *   name once `.` and `-` are one (`claude-haiku-4-5` ↔ `claude-haiku-4.5`); or it is one of the
 *   vendor's own ids models.dev gives for the catalog id; or the record's name equals the catalog's
 *   name without its `Vendor: ` prefix (`Claude Haiku 4.5`).
 * No date is stripped: a record for `gpt-4o-2024-05-13` is not about `openai/gpt-4o`.
 * `vertex` records are left out: they date a cloud platform's own retirement of Google's models,
 * which the `google` records date for the vendor's API, and two dates for one model would
 * contradict each other in the feed.
 */

import * as z from 'zod';
import { once } from '../once.js';
import { lenientText } from './lenient-text.js';
import type { ModelFacts } from './models-dev.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';
import { MAX_ID_LENGTH } from './openrouter-catalog.js';
import { modelKey, nameKey, namesNamespace } from './vendor-match.js';

/** Path of the answer, after the origin's base URL. */
export const DEPRECATIONS_PATH = '/api/v1/models.json';

/** About 400 records on 2026-08; room to grow tenfold. */
export const MAX_RECORDS = 5_000;
const MAX_ALIASES = 50;
const MAX_SOURCES = 20;
const MAX_REPLACEMENTS = 20;
const MAX_TEXT_LENGTH = 300;
const MAX_URL_LENGTH = 2_000;

/** Providers whose records date a platform's hosting, not the vendor's model (see above). */
const PLATFORM_PROVIDERS = new Set(['vertex']);
/** Hosts of community copies, not a vendor's own page. */
const COMMUNITY_HOSTS = ['github.com', 'raw.githubusercontent.com', 'gitlab.com'];

export interface DeprecationRecord {
  /** The list's provider slug (`openai`, `z-ai`, `moonshot`). */
  readonly provider: string;
  /** The vendor's own model id. */
  readonly model: string;
  readonly aliases: readonly string[];
  readonly name: string | null;
  /** YYYY-MM-DD, as cited. */
  readonly deprecatedOn: string | null;
  readonly shutdownOn: string | null;
  /** A "not sooner than" date, not a commitment. */
  readonly earliestShutdownOn: string | null;
  /** `active`, `deprecated` or `retired`: the list's status as of its build, else as written. */
  readonly status: string | null;
  /** `provider/model` of the recommended replacement, else of the first one named. */
  readonly replacement: string | null;
  /** The vendor's own page the dates are cited to; null when only a community copy is cited. */
  readonly sourceUrl: string | null;
}

export interface DeprecationList {
  readonly records: readonly DeprecationRecord[];
  readonly skipped: number;
}

export type DeprecationParse =
  | { readonly ok: true; readonly list: DeprecationList }
  | { readonly ok: false; readonly reason: string };

/** Built on the first parse: a process that answers from its record never needs them. */
const schemas = once(() => {
  const boundedText = lenientText(MAX_TEXT_LENGTH);
  const isoDate = z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/)
    .nullish()
    .catch(null);
  const vendorId = z.string().trim().min(1).max(MAX_ID_LENGTH);

  const RecordSchema = z.looseObject({
    provider: vendorId,
    model: vendorId,
    name: boundedText,
    aliases: z.array(z.unknown()).max(MAX_ALIASES).nullish().catch(null),
    deprecated_on: isoDate,
    shutdown_on: isoDate,
    earliest_shutdown_on: isoDate,
    status: boundedText,
    computed_status: boundedText,
    replacements: z
      .array(
        z.looseObject({
          provider: vendorId,
          model: vendorId,
          recommended: z.boolean().nullish().catch(null),
        }),
      )
      .max(MAX_REPLACEMENTS)
      .nullish()
      .catch(null),
    sources: z
      .array(
        z.looseObject({ url: z.string().max(MAX_URL_LENGTH).nullish().catch(null) }).catch({ url: null }),
      )
      .max(MAX_SOURCES)
      .nullish()
      .catch(null),
  });

  const EnvelopeSchema = z.looseObject({ models: z.array(z.unknown()) });

  return { RecordSchema, EnvelopeSchema };
});

/** Normalises a parsed `models.json` answer. */
export function parseVendorDeprecations(body: unknown): DeprecationParse {
  const { RecordSchema, EnvelopeSchema } = schemas();
  const envelope = EnvelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, reason: 'the answer has no "models" list' };
  const records: DeprecationRecord[] = [];
  let skipped = 0;
  for (const raw of envelope.data.models) {
    const entry = records.length < MAX_RECORDS ? RecordSchema.safeParse(raw) : null;
    if (entry?.success !== true) {
      skipped += 1;
      continue;
    }
    const { data } = entry;
    const replacements = data.replacements ?? [];
    const replacement = replacements.find((candidate) => candidate.recommended === true) ?? replacements[0];
    records.push({
      provider: data.provider.toLowerCase(),
      model: data.model,
      aliases: (data.aliases ?? []).filter(
        (alias): alias is string =>
          typeof alias === 'string' && alias !== '' && alias.length <= MAX_ID_LENGTH,
      ),
      name: data.name || null,
      deprecatedOn: data.deprecated_on ?? null,
      shutdownOn: data.shutdown_on ?? null,
      earliestShutdownOn: data.earliest_shutdown_on ?? null,
      status: data.computed_status || data.status || null,
      replacement: replacement === undefined ? null : `${replacement.provider}/${replacement.model}`,
      sourceUrl: vendorSource((data.sources ?? []).map((source) => source.url ?? null)),
    });
  }
  return { ok: true, list: { records, skipped } };
}

/** The first cited https page that is not a community copy. */
function vendorSource(urls: readonly (string | null)[]): string | null {
  for (const url of urls) {
    if (url === null || !URL.canParse(url)) continue;
    const { protocol, hostname } = new URL(url);
    if (protocol !== 'https:') continue;
    if (COMMUNITY_HOSTS.some((host) => hostname === host || hostname.endsWith(`.${host}`))) continue;
    return url;
  }
  return null;
}

/**
 * Whether a record announces an end: a deprecation or a committed shutdown date, or a status
 * that says so. A "not sooner than" date alone is a routine guarantee for a current model.
 */
export function announcesEnd(record: DeprecationRecord): boolean {
  return (
    record.deprecatedOn !== null ||
    record.shutdownOn !== null ||
    record.status === 'deprecated' ||
    record.status === 'retired'
  );
}

export interface DeprecationMatcher {
  /** The catalog base ids a record is about (see the rule above), sorted. */
  readonly match: (record: DeprecationRecord) => string[];
  /** The catalog namespace a provider stands for, the first in order; null when none. */
  readonly namespaceOf: (provider: string) => string | null;
}

/** Base id keys, per namespace: by model id, by name, by the vendor's own ids from models.dev. */
interface NamespaceIndex {
  readonly byId: Map<string, Set<string>>;
  readonly byName: Map<string, Set<string>>;
  readonly byVendorId: Map<string, Set<string>>;
}

/**
 * Prepares the catalog once for matching many records. `facts` are models.dev's, by listed catalog
 * id, for the vendor's own ids.
 */
export function deprecationMatcher(
  catalog: CatalogSnapshot,
  facts?: ReadonlyMap<string, ModelFacts>,
): DeprecationMatcher {
  const namespaces = new Map<string, NamespaceIndex>();
  const add = (map: Map<string, Set<string>>, key: string, baseId: string) => {
    const ids = map.get(key);
    if (ids === undefined) map.set(key, new Set([baseId]));
    else ids.add(baseId);
  };
  for (const model of catalog.models.values()) {
    const slash = model.baseId.indexOf('/');
    if (model.alias || slash <= 0) continue;
    const namespace = model.baseId.slice(0, slash);
    let index = namespaces.get(namespace);
    if (index === undefined) {
      index = { byId: new Map(), byName: new Map(), byVendorId: new Map() };
      namespaces.set(namespace, index);
    }
    add(index.byId, modelKey(model.baseId.slice(slash + 1)), model.baseId);
    // A variant's name says `(free)` or `(batch)`: only the base listing's name is the model's.
    if (model.name !== null && model.id === model.baseId)
      add(index.byName, nameKey(model.name), model.baseId);
    for (const id of facts?.get(model.id)?.vendorIds ?? []) add(index.byVendorId, modelKey(id), model.baseId);
  }
  const sortedNamespaces = [...namespaces.keys()].sort();
  const byProvider = new Map<string, string[]>();
  const namespacesOf = (provider: string) => {
    let known = byProvider.get(provider);
    if (known === undefined) {
      known = PLATFORM_PROVIDERS.has(provider)
        ? []
        : sortedNamespaces.filter((namespace) => namesNamespace(provider, namespace));
      byProvider.set(provider, known);
    }
    return known;
  };
  return {
    match(record) {
      const ids = [record.model, ...record.aliases].map(modelKey);
      const name = record.name === null ? null : nameKey(record.name);
      const matched = new Set<string>();
      for (const namespace of namespacesOf(record.provider)) {
        const index = namespaces.get(namespace)!;
        const found = [
          ...ids.flatMap((id) => [...(index.byId.get(id) ?? []), ...(index.byVendorId.get(id) ?? [])]),
          ...(name === null ? [] : (index.byName.get(name) ?? [])),
        ];
        for (const baseId of found) matched.add(baseId);
      }
      return [...matched].sort();
    },
    namespaceOf: (provider) => namespacesOf(provider)[0] ?? null,
  };
}

/**
 * What makes a record's announcement: a change in any of it is news. The status is left out: it
 * turns from `deprecated` to `retired` by itself on the shutdown date, which the record already
 * announced.
 */
export function deprecationKey(record: DeprecationRecord): string {
  return JSON.stringify([
    record.provider,
    record.model,
    record.deprecatedOn,
    record.shutdownOn,
    record.earliestShutdownOn,
    record.replacement,
  ]);
}
