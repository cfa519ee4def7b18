/**
 * The checks of `doctor --source public`, one origin after another in the report (asked side by
 * side): its address and route, DNS, TCP, TLS, then one GET of its resource through the same HTTP
 * client the public source uses (proxy per NO_PROXY, custom CA, retries, our user agent, bounded in
 * time and bytes). Then the record this machine keeps, read only.
 */

import { HttpClient, type Query } from '../api/http.js';
import { type Config, ENV, PUBLIC_ORIGINS } from '../config.js';
import type { Logger } from '../log.js';
import { createNetworkFetch } from '../net/fetch.js';
import { chooseProxy } from '../net/proxy.js';
import { ORIGIN_NAMES } from '../public/fetch-origins.js';
import { MODELS_DEV_PATH } from '../public/models-dev.js';
import { storeFolder } from '../public/open-public-source.js';
import { openFileStore } from '../public/store/file-store.js';
import { DEPRECATIONS_PATH } from '../public/vendor-deprecations.js';
import { displayUrl } from '../text/redact.js';
import { USER_AGENT } from '../version.js';
import { type Check, skipped } from './check.js';
import { type Probes, runConnectionChecks, timed } from './network-checks.js';
import {
  type AnswerReading,
  asOptional,
  checkOriginAddress,
  destinationOf,
  forOrigin,
  getFailed,
  getPassed,
  type OriginToCheck,
} from './origin-outcomes.js';
import { readCatalog, readDeprecations, readHuggingFace, readModelsDev } from './origin-readings.js';
import { checkRecord, type RecordFacts } from './record-check.js';
import { planRoute } from './route.js';

type Reader = (body: unknown, nowS: number) => AnswerReading;

interface PublicOrigin extends OriginToCheck {
  read: Reader;
  /** A bound on the answer's bytes, where the client's default is too small. */
  maxBodyBytes?: number;
}

/** models.dev's one answer holds every provider's models: as much as the public source allows it. */
const MODELS_DEV_MAX_BYTES = 32 * 1024 * 1024;

export function publicOrigins(config: Config): PublicOrigin[] {
  const { openrouter, modelsDev, huggingface, deprecations } = config.publicOrigins;
  return [
    {
      name: ORIGIN_NAMES.catalog,
      label: 'Catalog',
      setting: ENV.openrouterUrl,
      url: openrouter,
      adds: undefined,
      path: '/models',
      read: readCatalog,
    },
    {
      name: ORIGIN_NAMES.modelsDev,
      label: 'models.dev',
      setting: ENV.modelsDevUrl,
      url: modelsDev,
      adds: "release dates, open weights and the vendors' own ids",
      path: MODELS_DEV_PATH,
      read: readModelsDev,
      maxBodyBytes: MODELS_DEV_MAX_BYTES,
    },
    {
      name: ORIGIN_NAMES.huggingFace,
      label: 'Hugging Face',
      setting: ENV.huggingfaceUrl,
      url: huggingface,
      adds: 'open-model uploads (open_source_surge) and their popularity',
      path: '/api/models?limit=1',
      read: readHuggingFace,
    },
    {
      name: ORIGIN_NAMES.deprecations,
      label: 'Deprecations',
      setting: ENV.deprecationsUrl,
      url: deprecations,
      adds: "deprecation dates cited to the vendors' own pages (official)",
      path: DEPRECATIONS_PATH,
      read: readDeprecations,
    },
  ];
}

export interface PublicCheckDeps {
  config: Config;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  probes: Probes;
  now?: () => number;
}

/** One GET of the origin's resource, through its own route; the connection closed after. */
async function getResource(origin: PublicOrigin, url: string, deps: PublicCheckDeps) {
  const choice = chooseProxy(new URL(url), deps.config.proxy);
  const network = createNetworkFetch(choice.proxy, 1);
  try {
    const client = new HttpClient({
      baseUrl: url,
      secrets: deps.config.secrets,
      fetch: network.fetch,
      userAgent: USER_AGENT,
      timeoutMs: deps.config.timeoutMs,
      proxyLabel: choice.proxy ? (displayUrl(choice.proxy) ?? 'the proxy') : undefined,
      log: deps.log,
      ...(origin.maxBodyBytes !== undefined && { maxBodyBytes: origin.maxBodyBytes }),
    });
    const target = new URL(origin.path, 'http://origin.invalid');
    const query: Query = Object.fromEntries(target.searchParams);
    return await client.getJson(target.pathname, query);
  } finally {
    await network.close();
  }
}

async function checkOrigin(origin: PublicOrigin, deps: PublicCheckDeps): Promise<Check[]> {
  const { config, env } = deps;
  const choice = origin.url === undefined ? undefined : chooseProxy(new URL(origin.url), config.proxy);
  const address = checkOriginAddress(origin, env, choice);
  if (origin.url === undefined || choice === undefined) return [address];
  const url = origin.url;
  const to = destinationOf(origin);
  const connection = await runConnectionChecks(planRoute(url, choice), config.timeoutMs, deps.probes, to);
  const checks = [address, ...connection.checks.map((found) => forOrigin(origin, found))];
  if (connection.stopper !== undefined) {
    checks.push(forOrigin(origin, skipped('get', connection.stopper)));
    return asOptional(origin, checks);
  }
  const got = await timed(() => getResource(origin, url, deps));
  const nowS = Math.floor((deps.now ?? Date.now)() / 1000);
  checks.push(
    got.ok
      ? getPassed(origin, got.value, origin.read(got.value.body, nowS), got.ms)
      : getFailed(origin, got.error, got.ms),
  );
  return asOptional(origin, checks);
}

/**
 * The record of the public origins this machine keeps, read only: the configured catalog's, or with
 * the catalog off the default address's, as the source reads it then.
 */
async function readRecord(config: Config): Promise<RecordFacts> {
  const address = config.publicOrigins.openrouter ?? PUBLIC_ORIGINS.openrouter.url;
  const folder = storeFolder(config.stateFolder, address);
  let unreadable: string | undefined;
  try {
    const store = openFileStore(folder, {
      onNote: (message) => {
        unreadable = message;
      },
    });
    const head = await store.readHead();
    return { folder, head, unreadable };
  } catch (error) {
    return { folder, error };
  }
}

export async function runPublicChecks(deps: PublicCheckDeps): Promise<Check[]> {
  const origins = await Promise.all(publicOrigins(deps.config).map((origin) => checkOrigin(origin, deps)));
  const nowS = Math.floor((deps.now ?? Date.now)() / 1000);
  const catalogOff = deps.config.publicOrigins.openrouter === undefined;
  const record = checkRecord(await readRecord(deps.config), nowS, deps.config.refreshS, catalogOff);
  return [...origins.flat(), record];
}
