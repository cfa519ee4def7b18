/**
 * The public source, put together: the aggregator's catalog read through the same HTTP client as
 * the service (bounded, retried, proxied, with our user agent, without any key), recorded in the
 * store under the state folder, and answered through the FeedApi the tools use.
 */

import { join } from 'node:path';
import { type FetchLike, HttpClient } from '../api/http.js';
import type { Logger } from '../log.js';
import { nodeCrypto } from '../lazy-node.js';
import { fetchCatalog } from './fetch-catalog.js';
import { createPublicApi, type PublicApi } from './public-api.js';
import { CATALOG_ORIGIN, Recorder } from './recorder.js';
import type { RecordedStateJson } from './recorded-state.js';
import { openFileStore } from './store/file-store.js';

export interface PublicSourceOptions {
  /** Each origin's address by name, or undefined when off; `openrouter` is the spine. */
  origins: Readonly<Record<string, string | undefined>>;
  /** The setting that holds the catalog's address, for messages. */
  catalogSetting: string;
  refreshS: number;
  stateFolder: string;
  timeoutMs: number;
  fetch: FetchLike;
  userAgent: string;
  proxyLabel: string | undefined;
  secrets: readonly string[];
  log: Logger;
  describeFailure: (error: unknown, subject: string) => string;
}

/**
 * The store's folder: one per catalog address, so that a mirror's record and the real catalog's
 * never mix (they may differ), and switching back finds the old record again.
 */
export function storeFolder(stateFolder: string, catalogUrl: string | undefined): string {
  const key = nodeCrypto()
    .createHash('sha256')
    .update(catalogUrl ?? 'off')
    .digest('hex')
    .slice(0, 16);
  return join(stateFolder, 'public', key);
}

export function openPublicSource(options: PublicSourceOptions): PublicApi {
  const catalogUrl = options.origins[CATALOG_ORIGIN];
  const store = openFileStore<RecordedStateJson>(storeFolder(options.stateFolder, catalogUrl));
  const host = catalogUrl === undefined ? 'the catalog' : new URL(catalogUrl).host;
  const client =
    catalogUrl === undefined
      ? undefined
      : new HttpClient({
          baseUrl: catalogUrl,
          secrets: options.secrets,
          fetch: options.fetch,
          userAgent: options.userAgent,
          timeoutMs: options.timeoutMs,
          proxyLabel: options.proxyLabel,
          log: options.log,
        });
  const recorder = new Recorder({
    store,
    fetchCatalog:
      client === undefined || catalogUrl === undefined
        ? undefined
        : (takenAt, signal) => fetchCatalog(client, catalogUrl, takenAt, signal),
    refreshS: options.refreshS,
    log: options.log,
    origin: { label: `the aggregator's public catalog (${host})`, setting: options.catalogSetting },
    describeFailure: (error) => options.describeFailure(error, host),
  });
  return createPublicApi({
    recorder,
    store,
    // The origins answers draw on today: the catalog alone.
    origins: [{ name: CATALOG_ORIGIN, url: catalogUrl ?? null }],
    refreshS: options.refreshS,
  });
}
