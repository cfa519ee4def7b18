/**
 * The public source, put together: each origin read through the same HTTP client as the service
 * (bounded, retried, proxied, with our user agent, without any key), recorded in the store under
 * the state folder, and answered through the FeedApi the tools use.
 */

import { join } from 'node:path';
import { type FetchLike, HttpClient } from '../api/http.js';
import { nodeCrypto } from '../lazy-node.js';
import type { Logger } from '../log.js';
import { fetchOrigins, ORIGIN_NAMES } from './fetch-origins.js';
import { createPublicApi, type PublicApi } from './public-api.js';
import type { RecordedStateJson } from './recorded-state.js';
import { Recorder } from './recorder.js';
import { openFileStore } from './store/file-store.js';

/** Each origin's address, or undefined when off. */
export interface OriginAddresses {
  readonly catalog: string | undefined;
  readonly modelsDev: string | undefined;
  readonly huggingFace: string | undefined;
  readonly deprecations: string | undefined;
}

/**
 * models.dev's one answer holds every provider's models (several MB today); the other origins'
 * answers stay within the client's default bound.
 */
const MODELS_DEV_MAX_BYTES = 32 * 1024 * 1024;
/** A listing of 50 or 100 repositories is some 100 KB; the origin gets ten times that, no more. */
const HUGGING_FACE_MAX_BYTES = 1024 * 1024;

export interface PublicSourceOptions {
  origins: OriginAddresses;
  /**
   * The catalog address the record is kept under: the catalog's, or its default when the catalog
   * is off (then the record made from it is read, and nothing is fetched).
   */
  recordAddress: string;
  /** The setting that holds the catalog's address, for messages. */
  catalogSetting: string;
  refreshS: number;
  /** The oldest record answered with while the catalog cannot be read, and its setting. */
  staleMaxAgeS: number;
  staleMaxAgeSetting: string;
  stateFolder: string;
  timeoutMs: number;
  /** The network route for an origin's address (its proxy, per NO_PROXY). */
  fetchFor: (url: string) => { fetch: FetchLike; proxyLabel: string | undefined };
  userAgent: string;
  secrets: readonly string[];
  log: Logger;
  /** Why a read failed, in a few words, naming `subject`. */
  describeFailure: (error: unknown, subject: string) => string;
}

/**
 * The store's folder: one per catalog address, so that a mirror's record and the real catalog's
 * never mix (they may differ), and switching back finds the old record again.
 */
export function storeFolder(stateFolder: string, catalogUrl: string): string {
  const key = nodeCrypto().createHash('sha256').update(catalogUrl).digest('hex').slice(0, 16);
  return join(stateFolder, 'public', key);
}

export function openPublicSource(options: PublicSourceOptions): PublicApi {
  const { origins } = options;
  const client = (baseUrl: string | undefined, maxBodyBytes?: number) => {
    if (baseUrl === undefined) return undefined;
    const route = options.fetchFor(baseUrl);
    return new HttpClient({
      baseUrl,
      secrets: options.secrets,
      fetch: route.fetch,
      userAgent: options.userAgent,
      timeoutMs: options.timeoutMs,
      proxyLabel: route.proxyLabel,
      log: options.log,
      ...(maxBodyBytes !== undefined && { maxBodyBytes }),
    });
  };
  const catalogClient = client(origins.catalog);
  const clients = {
    catalog:
      catalogClient === undefined || origins.catalog === undefined
        ? undefined
        : { client: catalogClient, baseUrl: origins.catalog },
    modelsDev: client(origins.modelsDev, MODELS_DEV_MAX_BYTES),
    huggingFace: client(origins.huggingFace, HUGGING_FACE_MAX_BYTES),
    deprecations: client(origins.deprecations),
  };
  const hostOf = (url: string | undefined, fallback: string) =>
    url === undefined ? fallback : new URL(url).host;
  const catalogHost = new URL(options.recordAddress).host;
  // A refresh may take two request timeouts (the catalog's pages, then the other origins side by
  // side); a reader waits that long for another process's refresh, and a little more.
  const budgetMs = 2 * options.timeoutMs;
  const store = openFileStore<RecordedStateJson>(storeFolder(options.stateFolder, options.recordAddress), {
    lockWaitMs: budgetMs + 5000,
  });
  const recorder = new Recorder({
    store,
    fetchOrigins:
      clients.catalog === undefined
        ? undefined
        : (takenAt, signal) =>
            fetchOrigins(
              clients,
              takenAt,
              (error, name) => options.describeFailure(error, hostOf(addressOf(origins, name), name)),
              budgetMs,
              signal,
            ),
    refreshS: options.refreshS,
    staleMaxAgeS: options.staleMaxAgeS,
    staleMaxAgeSetting: options.staleMaxAgeSetting,
    log: options.log,
    origin: { label: `the aggregator's public catalog (${catalogHost})`, setting: options.catalogSetting },
    describeFailure: (error) => options.describeFailure(error, catalogHost),
  });
  return createPublicApi({
    recorder,
    store,
    origins: [
      { name: ORIGIN_NAMES.catalog, url: origins.catalog ?? null },
      { name: ORIGIN_NAMES.modelsDev, url: origins.modelsDev ?? null },
      { name: ORIGIN_NAMES.huggingFace, url: origins.huggingFace ?? null },
      { name: ORIGIN_NAMES.deprecations, url: origins.deprecations ?? null },
    ],
    refreshS: options.refreshS,
  });
}

function addressOf(origins: OriginAddresses, name: string): string | undefined {
  if (name === ORIGIN_NAMES.modelsDev) return origins.modelsDev;
  if (name === ORIGIN_NAMES.huggingFace) return origins.huggingFace;
  if (name === ORIGIN_NAMES.deprecations) return origins.deprecations;
  return origins.catalog;
}
