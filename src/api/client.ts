/**
 * The typed REST client: one method per `/api/v1` endpoint. Every body is parsed with the lenient
 * schemas; a body of the wrong shape is an UnexpectedResponseError, kept apart from HTTP errors.
 * Catalog reads (models, history) are cached for the TTL; every read is coalesced while in flight.
 */

import type { z } from 'zod';
import { type ModelFeedError, UnexpectedResponseError } from '../errors.js';
import { ReadCache } from './cache.js';
import { HttpClient, type HttpOptions, type Query } from './http.js';
import { parseBody } from './parse-body.js';
import type { RateLimitInfo } from './rate-limit.js';
import {
  type ChangesPage,
  ChangesPageSchema,
  type ModelsPage,
  ModelsPageSchema,
  type PriceHistory,
  PriceHistorySchema,
} from './schemas.js';

export interface ChangesQuery {
  since?: number | undefined;
  before?: number | undefined;
  limit?: number | undefined;
  type?: string | undefined;
  model?: string | undefined;
}

export interface ModelsQuery {
  vendor?: string | undefined;
  maxInputPrice?: number | undefined;
  minContext?: number | undefined;
}

/** A page of the feed, parsed, beside its items exactly as the service sent them. */
export interface ChangesRead {
  page: ChangesPage;
  /** `page.items[i]` as sent: unknown fields kept, no field added. What `watch` delivers. */
  sent: readonly Readonly<Record<string, unknown>>[];
}

export interface FeedApi {
  /** `GET /api/v1/changes`: never cached. */
  listChanges(query: ChangesQuery, signal?: AbortSignal): Promise<ChangesPage>;
  /** The same request, with the items as sent beside the parsed page. */
  readChanges(query: ChangesQuery, signal?: AbortSignal): Promise<ChangesRead>;
  /** `GET /api/v1/models`: cached for the TTL per filter set. */
  listModels(query: ModelsQuery, signal?: AbortSignal): Promise<ModelsPage>;
  /** `GET /api/v1/models/{slug}/history` for a catalog id: cached for the TTL. */
  getPriceHistory(modelId: string, signal?: AbortSignal): Promise<PriceHistory>;
  /** The rate-limit state as the service last reported it. */
  readonly rateLimit: RateLimitInfo | undefined;
}

export interface ApiClientOptions extends HttpOptions {
  /** Lifetime of cached catalog reads in ms; 0 turns the cache off. */
  cacheTtlMs: number;
  /** Bound of the read cache; an entry counts twice the length of its body. @default 32 MiB */
  cacheMaxBytes?: number;
}

/**
 * What a cached answer counts against the cache's bound, per byte of the body it was parsed from.
 * The parsed value itself takes 1.1–1.2 times the body's length (measured, Node 20 and 24); the
 * collector needs as much again beside live data, so a 32 MiB bound that counted bodies 1:1 still
 * let 100 distinct 9 MB answers reach 239 MB peak RSS on Node 24. Counted twice, it stays near 170.
 */
const CACHE_BYTES_PER_BODY_BYTE = 2;

/** The history path segment: the model id with every `/` replaced by `_`, then URL-encoded. */
export function historySlug(modelId: string): string {
  return encodeURIComponent(modelId.replaceAll('/', '_'));
}

/**
 * The key of a read in the cache and among requests in flight: names and values encoded as in the
 * query string itself, so `model: "openai&since=5"` and `{model: "openai", since: 5}` can never share
 * an answer.
 */
function cacheKey(path: string, query: Query): string {
  const parts = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .sort();
  return `${path}?${parts.join('&')}`;
}

export function createApiClient(options: ApiClientOptions): FeedApi {
  const http = new HttpClient(options);
  const cache = new ReadCache(options.now, options.cacheMaxBytes);

  async function get<S extends z.ZodType, R = z.infer<S>>(
    path: string,
    query: Query,
    schema: S,
    ttlMs: number,
    signal: AbortSignal | undefined,
    result: (parsed: z.infer<S>, body: unknown) => R = (parsed) => parsed as R,
  ): Promise<R> {
    return cache.read(
      cacheKey(path, query),
      ttlMs,
      async (shared) => {
        const response = await http.getJson(path, query, shared);
        const parsed = await parseBody(schema, response.body);
        if (!parsed.ok) {
          throw new UnexpectedResponseError(
            `${parsed.where}: ${parsed.message}`,
            response.status,
            response.facts,
          );
        }
        return {
          value: result(parsed.data as z.infer<S>, response.body),
          bytes: response.bytes * CACHE_BYTES_PER_BODY_BYTE,
        };
      },
      signal,
    );
  }

  const changesQuery = (query: ChangesQuery): Query => ({
    since: query.since,
    before: query.before,
    limit: query.limit,
    type: query.type,
    model: query.model,
  });

  const api: FeedApi = {
    // One request shape for both, so coalesced reads of the same page can share an answer.
    readChanges: (query, signal) =>
      get('/api/v1/changes', changesQuery(query), ChangesPageSchema, 0, signal, (page, body) => ({
        page,
        // The parse succeeded, so the body is an object whose `items` is an array of objects.
        sent: (body as { items: Record<string, unknown>[] }).items,
      })),
    listChanges: async (query, signal) => (await api.readChanges(query, signal)).page,
    listModels: (query, signal) =>
      get(
        '/api/v1/models',
        { vendor: query.vendor, maxInputPrice: query.maxInputPrice, minContext: query.minContext },
        ModelsPageSchema,
        options.cacheTtlMs,
        signal,
      ),
    getPriceHistory: (modelId, signal) =>
      get(
        `/api/v1/models/${historySlug(modelId)}/history`,
        {},
        PriceHistorySchema,
        options.cacheTtlMs,
        signal,
      ),
    get rateLimit() {
      return http.rateLimit;
    },
  };
  return api;
}

/** The API when the key or base URL is unusable: the server still starts; every call explains. */
export function unavailableApi(error: ModelFeedError): FeedApi {
  const fail = (): Promise<never> => Promise.reject(error);
  return {
    listChanges: fail,
    readChanges: fail,
    listModels: fail,
    getPriceHistory: fail,
    rateLimit: undefined,
  };
}

export type { ChangesPage, ModelsPage, PriceHistory, RateLimitInfo };
