/** Small, valid service resources for unit tests (the sandbox serves the real data set). */

import type { SetupServer } from 'msw/node';
import { type ApiClientOptions, createApiClient, type FeedApi } from '../src/api/client.js';
import { silentLogger } from '../src/log.js';
import type { WatchOptions } from '../src/watch/options.js';
import type { StatusLine } from '../src/watch/status.js';

/** What a promise rejected with, or an Error saying it did not: for assertions about failures. */
export const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );

/** Every request an msw server sees from now on, in order (cloned, so bodies stay readable). */
export function recordRequests(server: SetupServer): Request[] {
  const seen: Request[] = [];
  server.events.on('request:start', ({ request }) => {
    seen.push(request.clone());
  });
  return seen;
}

export const TEST_BASE = 'https://feed.test';

import { unavailableReason } from '../src/describe-error.js';

/**
 * The REST client as unit tests use it: pointed at `TEST_BASE`, on the global fetch (looked up per
 * call: msw patches it once its server listens), with a silent log.
 */
export function testApiClient(apiKey: string, overrides: Partial<ApiClientOptions> = {}): FeedApi {
  return createApiClient({
    baseUrl: TEST_BASE,
    apiKey,
    fetch: (url, init) => globalThis.fetch(url, init),
    userAgent: 'model-feed-mcp/test',
    describeUnavailable: unavailableReason,
    timeoutMs: 2000,
    cacheTtlMs: 60_000,
    proxyLabel: undefined,
    log: silentLogger,
    ...overrides,
  });
}

export function changeEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    eventType: 'price_change',
    title: 'GPT-4o price cut',
    summary: 'Input price halved.',
    beforeValue: 'in $5 / out $15 per 1M tokens',
    afterValue: 'in $2.5 / out $10 per 1M tokens',
    sourceUrl: 'https://openrouter.ai/openai/gpt-4o',
    sourceName: 'OpenRouter',
    verificationStatus: 'official',
    official: true,
    detectedAt: '2024-08-06T00:00:00Z',
    publishedAt: '2024-08-06T00:00:00Z',
    model: { slug: 'openai', name: 'GPT-4o', company: 'OpenAI', accentColor: '#10A37F' },
    ...overrides,
  };
}

export function changesPage(items: unknown[], latest: number | null, nextCursor: number | null = null) {
  return { items, nextCursor, latest };
}

export function model(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'openai/gpt-4o',
    name: 'GPT-4o',
    displayName: 'OpenAI: GPT-4o',
    vendor: 'openai',
    type: 'commercial',
    pricing: { inputPerMillion: 2.5, outputPerMillion: 10 },
    contextLength: 128000,
    listedAt: 1715558400,
    huggingfaceId: null,
    attention: { rank: 1, score: 90.5, newsCount: 3, opinions: 1 },
    url: 'https://openrouter.ai/openai/gpt-4o',
    ...overrides,
  };
}

export function modelsPage(items: unknown[], total = items.length) {
  return { items, total };
}

/** watch's options as parsed from no flags but a stdout sink and `--since 0`, with `overrides`. */
export function watchOptions(overrides: Partial<WatchOptions> = {}): WatchOptions {
  return {
    filters: {},
    since: 0,
    sinceGiven: false,
    reset: false,
    statePath: undefined,
    intervalS: undefined,
    once: false,
    maxAttempts: 10,
    skip: undefined,
    uses: [],
    sink: { kind: 'stdout' },
    ...overrides,
  };
}

/** A status line that shows nothing: writes go nowhere, an aside just runs. */
export const silentStatus: StatusLine = {
  update: () => {},
  write: () => {},
  aside: (write) => write(),
  stop: () => {},
};
