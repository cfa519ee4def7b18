/**
 * One fetch of every public origin that is on: the aggregator's catalog first (the spine: without
 * it there is no snapshot), then models.dev, the open model repository's listings of the
 * organisations the catalog links, and the vendor-cited deprecations, side by side. An origin that
 * fails is absent from this snapshot and named in the poll record; what it showed before is kept.
 */

import { setMaxListeners } from 'node:events';
import type { Query } from '../api/http.js';
import type { JsonGetter } from './fetch-catalog.js';
import { fetchCatalog } from './fetch-catalog.js';
import {
  type HuggingFaceListings,
  type HuggingFaceRepo,
  parseHuggingFaceListings,
  planHuggingFaceRequests,
} from './huggingface.js';
import { MODELS_DEV_PATH, type ModelsDevIndex, parseModelsDev } from './models-dev.js';
import type { CatalogParse, CatalogSnapshot } from './openrouter-catalog.js';
import { DEPRECATIONS_PATH, type DeprecationList, parseVendorDeprecations } from './vendor-deprecations.js';

/** Far above the requests of one fetch (the catalog's pages, forty listings, two more). */
const MAX_REQUESTS_LISTENING = 100;

/** The origins by the names the poll records and `dataSource` use. */
export const ORIGIN_NAMES = {
  catalog: 'openrouter',
  modelsDev: 'models.dev',
  huggingFace: 'huggingface',
  deprecations: 'modeldeprecations.dev',
} as const;

export interface OriginClients {
  /** Each with the origin's base URL; absent when the origin is off. */
  readonly catalog?: { client: JsonGetter; baseUrl: string } | undefined;
  readonly modelsDev?: JsonGetter | undefined;
  readonly huggingFace?: JsonGetter | undefined;
  readonly deprecations?: JsonGetter | undefined;
}

export interface OriginsFetch {
  readonly catalog: CatalogParse;
  readonly modelsDev?: ModelsDevIndex | undefined;
  readonly huggingFace?: HuggingFaceListings | undefined;
  readonly deprecations?: DeprecationList | undefined;
  /** Per origin name: `ok`, `off`, or why it failed, in a few words. */
  readonly statuses: Readonly<Record<string, string>>;
}

/**
 * `budgetMs` bounds the whole fetch, every origin and page included: the fetch lock is held that
 * long at most, and the readers waiting on it wait no longer. What is not in by then is absent.
 */
export async function fetchOrigins(
  clients: OriginClients,
  takenAt: number,
  describeFailure: (error: unknown, origin: string) => string,
  budgetMs: number,
  caller?: AbortSignal,
): Promise<OriginsFetch> {
  const statuses: Record<string, string> = {};
  const { catalog: spine } = clients;
  if (spine === undefined) throw new Error('the catalog is off: nothing to fetch');
  const deadline = AbortSignal.timeout(budgetMs);
  const signal = caller === undefined ? deadline : AbortSignal.any([caller, deadline]);
  // Every request of the fetch listens to this one signal: forty listings are not a leak.
  setMaxListeners(MAX_REQUESTS_LISTENING, signal);
  const late = `no complete answer within ${budgetMs} ms`;
  let catalog: CatalogParse;
  try {
    catalog = await fetchCatalog(spine.client, spine.baseUrl, takenAt, signal);
  } catch (error) {
    if (caller?.aborted || !deadline.aborted) throw error;
    catalog = { ok: false, reason: late };
  }
  statuses[ORIGIN_NAMES.catalog] = catalog.ok ? 'ok' : catalog.reason;
  if (!catalog.ok) return { catalog, statuses };

  /** One origin's part: its parsed answer, or undefined and a status saying why not. */
  async function part<T>(
    name: string,
    client: JsonGetter | undefined,
    read: (client: JsonGetter) => Promise<T | string>,
  ) {
    if (client === undefined) {
      statuses[name] = 'off';
      return undefined;
    }
    try {
      const value = await read(client);
      statuses[name] = typeof value === 'string' ? value : 'ok';
      return typeof value === 'string' ? undefined : value;
    } catch (error) {
      if (caller?.aborted) throw error;
      statuses[name] = deadline.aborted ? late : describeFailure(error, name);
      return undefined;
    }
  }

  const [modelsDev, huggingFace, deprecations] = await Promise.all([
    part(ORIGIN_NAMES.modelsDev, clients.modelsDev, async (client) => {
      const parsed = parseModelsDev((await getPath(client, MODELS_DEV_PATH, signal)).body);
      return parsed.ok ? parsed.index : parsed.reason;
    }),
    part(ORIGIN_NAMES.huggingFace, clients.huggingFace, (client) =>
      readListings(client, catalog.snapshot, signal),
    ),
    part(ORIGIN_NAMES.deprecations, clients.deprecations, async (client) => {
      const parsed = parseVendorDeprecations((await getPath(client, DEPRECATIONS_PATH, signal)).body);
      return parsed.ok ? parsed.list : parsed.reason;
    }),
  ]);
  return { catalog, modelsDev, huggingFace, deprecations, statuses };
}

/**
 * The listings of the organisations the catalog links. A listing that fails is left out (its
 * organisation is then not "answered", so none of its uploads is judged new or gone); all failing
 * is a failure of the origin.
 */
async function readListings(
  client: JsonGetter,
  catalog: CatalogSnapshot,
  signal: AbortSignal | undefined,
): Promise<HuggingFaceListings> {
  const requests = planHuggingFaceRequests(catalog);
  // Each answer is normalised as it arrives and its body let go: forty raw listings held at once
  // would be forty times the bound of one.
  const settled = await Promise.allSettled(
    requests.map(async (request) =>
      parseHuggingFaceListings([{ request, body: (await getPath(client, request.path, signal)).body }]),
    ),
  );
  const parts = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (parts.length === 0 && failed !== undefined) throw failed.reason;
  return joinListings(parts);
}

function joinListings(parts: readonly HuggingFaceListings[]): HuggingFaceListings {
  const repos = new Map<string, HuggingFaceRepo>();
  const answeredOrgs = new Set<string>();
  let skipped = 0;
  for (const part of parts) {
    for (const [key, repo] of part.repos) if (!repos.has(key)) repos.set(key, repo);
    for (const org of part.answeredOrgs) answeredOrgs.add(org);
    skipped += part.skipped;
  }
  return { repos, answeredOrgs, skipped };
}

/** A path that may carry its own query, split as the HTTP client takes it. */
function getPath(client: JsonGetter, pathAndQuery: string, signal: AbortSignal | undefined) {
  const url = new URL(pathAndQuery, 'http://origin.invalid');
  const query: Query = Object.fromEntries(url.searchParams);
  return client.getJson(url.pathname, query, signal);
}
