/**
 * The typed REST client: one method per `/api/v1` endpoint. Every body is parsed with the lenient
 * schemas; a body of the wrong shape is an UnexpectedResponseError, kept apart from HTTP errors.
 * Catalog reads (models, history) are cached for the TTL; every read is coalesced while in flight.
 */

import type { z } from 'zod';
import {
  CursorStuckError,
  isServiceUnavailable,
  type ModelFeedError,
  RateLimitError,
  type RequestFacts,
  UnexpectedResponseError,
} from '../errors.js';
import type { DiskCache } from '../store/disk-cache.js';
import { secretValues } from '../text/redact.js';
import { ReadCache } from './cache.js';
import type { DataSource } from './data-source.js';
import { type Glimpse, HttpClient, type HttpOptions, type Query } from './http.js';
import { glimpsePage } from './page-glimpse.js';
import { parseBody } from './parse-body.js';
import type { RateLimitInfo } from './rate-limit.js';
import { apiSchemas, type ChangesPage, type ModelsPage, type PriceHistory } from './schemas.js';

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

/** An answer that came from an older copy because the service could not give one. */
export interface StaleInfo {
  ageSeconds: number;
  /** Why, e.g. "the service is unreachable (ECONNREFUSED)". */
  reason: string;
}

/** What a caller may learn of how a catalog read was answered. */
export interface ReadNotes {
  /** Told when an older copy answered because the service was down. */
  onStale?: (info: StaleInfo) => void;
  /**
   * Told until when the answer stays fresh (epoch ms): its cache entry's expiry, or the moment of
   * the read when it was not kept (the cache off, a stale copy).
   */
  onFreshUntil?: (epochMs: number) => void;
  /** Told where the answer came from, when it is not the service (the public source's record). */
  onSource?: (source: DataSource) => void;
}

export interface FeedApi {
  /** `GET /api/v1/changes`: never cached. `notes` hear only where it came from. */
  listChanges(query: ChangesQuery, signal?: AbortSignal, notes?: ReadNotes): Promise<ChangesPage>;
  /**
   * The same request answered as catalog reads are: cached for the TTL, on disk too, an older copy
   * when the service is down. For `check`, whose deprecation notices may be as old as the catalog
   * beside them; never for `watch` or the tools, which must see the feed as it is.
   */
  listChangesCached(query: ChangesQuery, signal?: AbortSignal, notes?: ReadNotes): Promise<ChangesPage>;
  /** The same request, with the items as sent beside the parsed page. */
  readChanges(query: ChangesQuery, signal?: AbortSignal): Promise<ChangesRead>;
  /**
   * `GET /api/v1/models`: cached for the TTL per filter set. When the service is down, an older
   * copy may answer; `notes.onStale` is then told how old it is and why.
   */
  listModels(query: ModelsQuery, signal?: AbortSignal, notes?: ReadNotes): Promise<ModelsPage>;
  /** `GET /api/v1/models/{slug}/history` for a catalog id: cached as listModels is. */
  getPriceHistory(modelId: string, signal?: AbortSignal, notes?: ReadNotes): Promise<PriceHistory>;
  /** The rate-limit state as the service last reported it. */
  readonly rateLimit: RateLimitInfo | undefined;
  /** How long catalog answers are kept, in ms; absent or 0: not kept. */
  readonly cacheTtlMs?: number;
}

export interface ApiClientOptions extends HttpOptions {
  /** Lifetime of cached catalog reads in ms; 0 turns the cache off. */
  cacheTtlMs: number;
  /** Bound of the read cache; an entry counts twice the length of its body. @default 32 MiB */
  cacheMaxBytes?: number;
  /** The cache shared by the user's processes: catalog answers and the last 429. @default none */
  diskCache?: DiskCache;
  /** The oldest stored copy a catalog read may answer with when the service is down; 0 = none. */
  staleMaxAgeMs?: number;
  /**
   * Why the service could not answer, in a few words, for a stale answer's note: worded above
   * this layer, which writes no text for people.
   */
  describeUnavailable: (error: unknown) => string;
}

/** One read of the REST API, as the client's one `get` takes it. */
interface Read<S extends z.ZodType, R> {
  path: string;
  query: Query;
  schema: S;
  /** How long the answer is kept (memory, then disk); 0: never kept, never from a copy (the feed). */
  ttlMs: number;
  signal?: AbortSignal | undefined;
  /** What the caller gets from the parsed answer and its body. @default the parsed answer */
  result?: (parsed: z.infer<S>, body: unknown) => R;
  notes?: ReadNotes | undefined;
  /** What the parsed answer breaks of the contract beyond its shape, if anything. */
  contract?: (parsed: z.infer<S>) => string | undefined;
  /** What a refused body may still tell (a page of changes: its first change). */
  glimpse?: Glimpse;
}

/** What a read resolves to inside the caches: the value, and whether an older copy stood in. */
interface Loaded<R> {
  data: R;
  stale?: StaleInfo;
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

/**
 * Changes after `since` must come with a `latest` past it: sent back as the next `since`, any other
 * would ask for the same page forever (service contract, rule 3). Without `since` (newest first)
 * there is no cursor to move.
 */
function cursorStuck(page: ChangesPage, since: number | undefined): string | undefined {
  if (since === undefined || page.items.length === 0) return undefined;
  if (page.latest !== null && page.latest > since) return undefined;
  const changes = page.items.length === 1 ? '1 change' : `${page.items.length} changes`;
  return `latest: ${page.latest} does not move past since=${since} although ${changes} came`;
}

export function createApiClient(options: ApiClientOptions): FeedApi {
  const http = new HttpClient(options);
  const cache = new ReadCache(options.now, options.cacheMaxBytes);

  const now = options.now ?? Date.now;
  const disk = options.diskCache;
  const staleMaxAgeMs = options.staleMaxAgeMs ?? 0;

  /** A 429 another process saw is honoured here too: no request before its `retry-after`. */
  async function throwIfLimitShared(path: string): Promise<void> {
    const shared = await disk?.readLimit();
    if (!shared) return;
    const facts: RequestFacts = {
      method: 'GET',
      path,
      host: new URL(options.baseUrl).host,
      attempts: 0,
      proxy: undefined,
    };
    const left = Math.max(1, Math.ceil((shared.retryAt - now()) / 1000));
    throw new RateLimitError(shared.serviceMessage, facts, shared.rateLimit, left, now(), true);
  }

  const secrets = secretValues([options.apiKey, ...(options.secrets ?? [])]);

  async function parse<S extends z.ZodType>(
    schema: S,
    body: unknown,
    status: number,
    facts: RequestFacts,
    glimpse: Glimpse | undefined,
  ) {
    const parsed = await parseBody(schema, body);
    if (!parsed.ok) {
      const detail = `${parsed.where}: ${parsed.message}`;
      throw new UnexpectedResponseError(detail, status, facts, glimpse?.(body, secrets));
    }
    return parsed.data as z.infer<S>;
  }

  /** A stored answer that passes the same checks as one from the network; undefined if it does not. */
  async function parseStored<S extends z.ZodType>(schema: S, body: unknown): Promise<z.infer<S> | undefined> {
    const parsed = await parseBody(schema, body);
    return parsed.ok ? (parsed.data as z.infer<S>) : undefined;
  }

  async function get<S extends z.ZodType, R = z.infer<S>>(read: Read<S, R>): Promise<R> {
    const { path, query, schema, ttlMs, signal, notes, contract, glimpse } = read;
    const result = read.result ?? ((parsed: z.infer<S>) => parsed as R);
    const key = cacheKey(path, query);
    // Only catalog reads (ttl > 0) touch the disk: the change feed is never answered from a copy.
    const cached = ttlMs > 0 && disk !== undefined;
    const loaded = await cache.read<Loaded<R>>(
      key,
      ttlMs,
      async (shared) => {
        const stored = cached ? await disk.read(key) : undefined;
        if (stored && now() - stored.storedAt < ttlMs) {
          const data = await parseStored(schema, stored.body);
          if (data !== undefined) {
            return {
              value: { data: result(data, stored.body) },
              bytes: stored.bytes * CACHE_BYTES_PER_BODY_BYTE,
              expires: stored.storedAt + ttlMs,
            };
          }
        }
        let response: Awaited<ReturnType<HttpClient['getJson']>>;
        try {
          await throwIfLimitShared(key);
          response = await http.getJson(path, query, shared, glimpse);
        } catch (error) {
          if (error instanceof RateLimitError && !error.fromMemory && error.retryAt !== undefined) {
            await disk?.writeLimit({
              retryAt: error.retryAt,
              serviceMessage: error.serviceMessage,
              rateLimit: error.rateLimit,
            });
          }
          const age = stored ? now() - stored.storedAt : Number.POSITIVE_INFINITY;
          if (stored && isServiceUnavailable(error) && age <= staleMaxAgeMs) {
            const data = await parseStored(schema, stored.body);
            if (data !== undefined) {
              const stale = {
                ageSeconds: Math.max(0, Math.floor(age / 1000)),
                reason: options.describeUnavailable(error),
              };
              // Kept out of the memory cache (expired at once): the next call asks the service again.
              return { value: { data: result(data, stored.body), stale }, bytes: 0, expires: 0 };
            }
          }
          throw error;
        }
        const data = await parse(schema, response.body, response.status, response.facts, glimpse);
        const broken = contract?.(data);
        // Checked here, where the request's facts are known, so the message names its host and path.
        if (broken !== undefined) throw new CursorStuckError(broken, response.status, response.facts);
        // A body past the disk cache's bound is not even serialised: that alone could take a second.
        if (cached && response.bytes <= disk.maxBytes) await disk.write(key, response.body);
        return {
          value: { data: result(data, response.body) },
          bytes: response.bytes * CACHE_BYTES_PER_BODY_BYTE,
        };
      },
      signal,
    );
    if (loaded.stale) notes?.onStale?.(loaded.stale);
    notes?.onFreshUntil?.(cache.expiresAt(key) ?? now());
    return loaded.data;
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
      get({
        path: '/api/v1/changes',
        query: changesQuery(query),
        schema: apiSchemas().ChangesPage,
        ttlMs: 0,
        signal,
        result: (page, body) => ({
          page,
          // The parse succeeded, so the body is an object whose `items` is an array of objects.
          sent: (body as { items: Record<string, unknown>[] }).items,
        }),
        contract: (page) => cursorStuck(page, query.since),
        glimpse: glimpsePage,
      }),
    listChanges: async (query, signal) => (await api.readChanges(query, signal)).page,
    listChangesCached: (query, signal, notes) =>
      get({
        path: '/api/v1/changes',
        query: changesQuery(query),
        schema: apiSchemas().ChangesPage,
        ttlMs: options.cacheTtlMs,
        signal,
        notes,
        contract: (page) => cursorStuck(page, query.since),
      }),
    listModels: (query, signal, notes) =>
      get({
        path: '/api/v1/models',
        query: { vendor: query.vendor, maxInputPrice: query.maxInputPrice, minContext: query.minContext },
        schema: apiSchemas().ModelsPage,
        ttlMs: options.cacheTtlMs,
        signal,
        notes,
      }),
    getPriceHistory: (modelId, signal, notes) =>
      get({
        path: `/api/v1/models/${historySlug(modelId)}/history`,
        query: {},
        schema: apiSchemas().PriceHistory,
        ttlMs: options.cacheTtlMs,
        signal,
        notes,
      }),
    get rateLimit() {
      return http.rateLimit;
    },
    cacheTtlMs: options.cacheTtlMs,
  };
  return api;
}

/** The API when the key or base URL is unusable: the server still starts; every call explains. */
export function unavailableApi(error: ModelFeedError): FeedApi {
  const fail = (): Promise<never> => Promise.reject(error);
  return {
    listChanges: fail,
    listChangesCached: fail,
    readChanges: fail,
    listModels: fail,
    getPriceHistory: fail,
    rateLimit: undefined,
  };
}

export type { ChangesPage, ModelsPage, PriceHistory, RateLimitInfo };
