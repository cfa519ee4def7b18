/** Turns a Config into a working API client: the wiring shared by serve, call and doctor. */

import { createApiClient, type FeedApi, unavailableApi } from './api/client.js';
import type { DataSource } from './api/data-source.js';
import { MAX_CONCURRENT_REQUESTS } from './api/http.js';
import { apiSchemas } from './api/schemas.js';
import { type Config, ENV, PUBLIC_ORIGINS } from './config.js';
import { unavailableReason } from './describe-error.js';
import { ConfigError } from './errors.js';
import type { Logger } from './log.js';
import type { ServerDeps } from './mcp-server-deps.js';
import { createNetworkFetch, type NetworkFetch } from './net/fetch.js';
import { chooseProxy, type ProxyChoice } from './net/proxy.js';
import type { Sandbox, SandboxOptions } from './sandbox/service.js';
import { DiskCache } from './store/disk-cache.js';
import { displayUrl } from './text/redact.js';
import { USER_AGENT, VERSION } from './version.js';

export interface Runtime {
  api: FeedApi;
  /** Where answers come from, for results to carry; absent for the service. */
  dataSource: (() => DataSource) | undefined;
  /** undefined when there is nowhere to connect (setup problem). */
  proxyChoice: ProxyChoice | undefined;
  /** True when answering from the in-process sandbox. */
  sampleData: boolean;
  /**
   * Opens the connection the first call will use (proxy tunnel and TLS handshake included) while
   * the client is idle. Spends no quota: the request carries no key. Never throws.
   */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a server answering from this runtime is built from: where its answers come from, whose
 * secrets its texts hide, and what the caller adds (its audience, its subscriptions).
 */
export function serverDeps(
  runtime: Runtime,
  log: Logger,
  secrets: readonly string[],
  more: Pick<ServerDeps, 'audience' | 'watchIntervalS' | 'changeSubscriptions'> = {},
): ServerDeps {
  return {
    api: runtime.api,
    log,
    version: VERSION,
    sampleData: runtime.sampleData,
    dataSource: runtime.dataSource,
    secrets,
    ...more,
  };
}

/** A warm-up that gives up quickly: it only saves the first call some round trips. */
const WARM_UP_TIMEOUT_MS = 5000;
const WARM_UP_SAMPLE = {
  items: [{ id: 'v/m', pricing: { inputPerMillion: 1, outputPerMillion: 2 }, attention: { rank: 1 } }],
  total: 1,
};

/**
 * The in-process sandbox of `--sandbox`, its logs going to the stderr logger. Without `/api/mcp`
 * (404): the runner reads only the REST API, and no one else holds the generated key. Its own news
 * (where it listens, each change it publishes) is a detail of this process, at debug: `watch
 * --sandbox` shows each change once, as the watcher delivers it, not again as the sandbox made it.
 */
export async function startLocalSandbox(log: Logger, options: SandboxOptions = {}): Promise<Sandbox> {
  const { startSandbox } = await import('./sandbox/service.js');
  return startSandbox({
    ...options,
    log: (level, message) => log[level === 'info' ? 'debug' : level](`sandbox: ${message}`),
  });
}

interface Target {
  baseUrl: string;
  apiKey: string;
  /** The sample data's own date (Unix s), for the in-process sandbox. */
  dataAsOf?: number;
  close: () => Promise<void>;
}

/** Where the service is and the key to use: the configured one, or an in-process sandbox. */
async function resolveTarget(
  config: Config,
  log: Logger,
  sandboxOptions: SandboxOptions | undefined,
): Promise<Target | undefined> {
  if (config.sandbox) {
    const sandbox = await startLocalSandbox(log, sandboxOptions);
    return {
      baseUrl: sandbox.url,
      apiKey: sandbox.key,
      dataAsOf: sandbox.dataAsOf,
      close: () => sandbox.close(),
    };
  }
  if (config.baseUrl === undefined || config.apiKey === undefined) return undefined;
  return { baseUrl: config.baseUrl, apiKey: config.apiKey, close: async () => {} };
}

/** What every sample-data result says of where it came from. */
function sampleDataSource(dataAsOf: number | undefined): () => DataSource {
  const source: DataSource = {
    kind: 'sample',
    origins: [{ name: 'sample', url: null, status: 'built in' }],
    snapshotAt: dataAsOf === undefined ? null : `${new Date(dataAsOf * 1000).toISOString().slice(0, 19)}Z`,
    recordingSince: null,
  };
  return () => source;
}

/** `--source public`: the public origins, recorded on this machine; no key, no service. */
async function publicRuntime(config: Config, log: Logger): Promise<Runtime> {
  const { openrouter, modelsDev, huggingface, deprecations } = config.publicOrigins;
  // One connection pool per route: origins that share a proxy (or go direct) share it.
  const networks = new Map<string, NetworkFetch>();
  const route = (url: string) => {
    const choice = chooseProxy(new URL(url), config.proxy);
    const key = choice.proxy ?? 'direct';
    let network = networks.get(key);
    if (network === undefined) {
      network = createNetworkFetch(choice.proxy, MAX_CONCURRENT_REQUESTS);
      networks.set(key, network);
    }
    return { choice, network };
  };
  const catalogRoute = route(openrouter ?? PUBLIC_ORIGINS.openrouter.url);
  const { openPublicSource } = await import('./public/open-public-source.js');
  const api = openPublicSource({
    origins: { catalog: openrouter, modelsDev, huggingFace: huggingface, deprecations },
    recordAddress: openrouter ?? PUBLIC_ORIGINS.openrouter.url,
    catalogSetting: ENV.openrouterUrl,
    refreshS: config.refreshS,
    staleMaxAgeS: config.staleMaxAgeS,
    staleMaxAgeSetting: ENV.staleMaxAge,
    stateFolder: config.stateFolder,
    timeoutMs: config.timeoutMs,
    fetchFor: (url) => {
      const { choice, network } = route(url);
      return {
        fetch: network.fetch,
        proxyLabel: choice.proxy ? (displayUrl(choice.proxy) ?? 'the proxy') : undefined,
      };
    },
    userAgent: USER_AGENT,
    secrets: config.secrets,
    log,
    describeFailure: unavailableReason,
  });
  return {
    api,
    dataSource: () => api.dataSource(),
    proxyChoice: catalogRoute.choice,
    sampleData: false,
    warmUp: async () => {},
    close: async () => {
      await Promise.allSettled([...networks.values()].map((network) => network.close()));
    },
  };
}

/** `sandboxOptions` shape the in-process sandbox of `--sandbox` (watch asks for a live feed). */
export async function createRuntime(
  config: Config,
  log: Logger,
  sandboxOptions?: SandboxOptions,
): Promise<Runtime> {
  if (config.source === 'public' && !config.setupError) return publicRuntime(config, log);
  const target = config.setupError ? undefined : await resolveTarget(config, log, sandboxOptions);
  if (!target) {
    return {
      api: unavailableApi(
        config.setupError ?? new ConfigError('The service is not configured.', ENV.baseUrl),
      ),
      dataSource: undefined,
      proxyChoice: undefined,
      sampleData: false,
      warmUp: async () => {},
      close: async () => {},
    };
  }
  const { baseUrl, apiKey } = target;
  const proxyChoice = chooseProxy(new URL(baseUrl), config.proxy);
  log.debug('route to the service', { baseUrl, route: proxyChoice.reason });
  const network = createNetworkFetch(proxyChoice.proxy, MAX_CONCURRENT_REQUESTS);
  const diskCache = config.diskCache
    ? new DiskCache({
        folder: config.cacheFolder,
        baseUrl,
        apiKey,
        note: (message) => log.debug(message),
      })
    : undefined;
  const api = createApiClient({
    baseUrl,
    apiKey,
    baseUrlSetting: config.sources.baseUrl,
    secrets: config.secrets,
    fetch: network.fetch,
    userAgent: USER_AGENT,
    timeoutMs: config.timeoutMs,
    cacheTtlMs: config.cacheTtlS * 1000,
    diskCache,
    staleMaxAgeMs: config.staleMaxAgeS * 1000,
    describeUnavailable: unavailableReason,
    proxyLabel: proxyChoice.proxy ? (displayUrl(proxyChoice.proxy) ?? 'the proxy') : undefined,
    log,
  });
  let closed = false;
  return {
    api,
    dataSource: config.sandbox ? sampleDataSource(target.dataAsOf) : undefined,
    proxyChoice,
    sampleData: config.sandbox,
    warmUp: async () => {
      if (config.sandbox || closed) return;
      const started = performance.now();
      // What the first answer needs built and compiled: the response schemas, run once on a sample.
      apiSchemas().ModelsPage.safeParse(WARM_UP_SAMPLE);
      try {
        // OPTIONS on the service's root, without the key: nothing is counted against the quota, and
        // the keep-alive pool keeps the connection for the first real call. Not HEAD: Node's agent
        // does not reuse a socket after a HEAD (measured, Node 20).
        const response = await network.fetch(`${baseUrl}/`, {
          method: 'OPTIONS',
          headers: { 'user-agent': USER_AGENT },
          redirect: 'manual',
          signal: AbortSignal.timeout(WARM_UP_TIMEOUT_MS),
        });
        if (response.body) for await (const _chunk of response.body);
        log.debug('warm-up: connection to the service open', { ms: Math.round(performance.now() - started) });
      } catch (error) {
        // The first call will meet the same problem and explain it; here it only costs a log line.
        log.debug('warm-up failed', { error: error instanceof Error ? error.message : String(error) });
      }
    },
    close: async () => {
      closed = true;
      await Promise.allSettled([network.close(), target.close()]);
    },
  };
}
