import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { hostOrOriginRefusal } from '../http/host-check.js';
import { filterCatalog } from '../service-rules/catalog-filter.js';
import { queryFeed } from '../service-rules/feed-query.js';
import { oneLine } from '../text/terminal.js';
import type { Dataset } from './dataset.js';
import { type AuthFailure, KeyStore } from './keys.js';
import { initialLiveState, LIVE_KINDS, type LiveKind, type LiveState } from './live.js';
import { generateChange } from './live-changes.js';
import { applyPublication, publishBacklog } from './live-publish.js';
import { parseChangesQuery, parseModelsQuery } from './params.js';
import { DailyQuota, type QuotaDecision } from './quota.js';
import { sendJson } from './reply.js';
import type { ChangeEvent } from './types.js';

/** Serves `POST /api/mcp` once authenticated; `key` is the caller's bearer key. */
export type McpHandler = (req: IncomingMessage, res: ServerResponse, key: string) => Promise<void>;

export type SandboxLog = (level: 'debug' | 'info' | 'warn', message: string) => void;

export interface RecordedRequest {
  method: string;
  /** Path as received (still percent-encoded), without the query. */
  path: string;
  /** Decoded query parameters; a repeated parameter gives an array. */
  query: Record<string, string | string[]>;
  /** Headers as received, `authorization` included (a test aid: the key store itself keeps hashes only). */
  headers: IncomingHttpHeaders;
  /** `now()` when the request arrived (ms). */
  time: number;
}

export interface SandboxAppOptions {
  dataset: Dataset;
  now: () => number;
  mcp?: McpHandler | undefined;
  /**
   * The Host/Origin values `/api/mcp` accepts (host-check.ts), known once the socket is bound; a
   * foreign one gets 403 before the key is looked at, against DNS rebinding. Absent: no check.
   */
  mcpAuthorities?: (() => ReadonlySet<string>) | undefined;
  log?: SandboxLog | undefined;
  /** Seed of the changes `publish` and `publishMany` generate. @default 1 */
  seed?: number | undefined;
}

export interface SandboxApp {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The most recent authenticated requests, oldest first, within REQUEST_LOG_LIMITS (live view). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  readonly keys: KeyStore;
  setVerification(eventId: string, status: 'official' | 'rejected'): void;
  /** Publishes one generated change now (live.ts) and logs it; returns the event as the feed holds it. */
  publish(kind?: LiveKind): ChangeEvent;
  /** Publishes `count` generated price changes at once: a backlog for a follower to drain. */
  publishMany(count: number): void;
}

/** The most `publishMany` appends in one call: a bound on memory (about 1 KB an event). */
export const MAX_PUBLISH_MANY = 1_000_000;

/**
 * How much the request log keeps; past either limit the oldest entries go. The byte limit holds
 * a long-running `model-feed-mcp sandbox` to a few MB whatever callers send (a request may carry
 * up to 16 KiB of headers); the count limit holds the per-entry overhead of many small requests.
 * Tests read a handful of entries, far below both.
 */
export const REQUEST_LOG_LIMITS = { requests: 10_000, bytes: 2 * 1024 * 1024 } as const;

// Measured on Node 20: a header or query field costs about this much heap beyond its text.
const FIELD_OVERHEAD_BYTES = 64;

function fieldBytes(name: string, value: string | string[] | undefined): number {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return values.reduce(
    (sum, each) => sum + each.length + FIELD_OVERHEAD_BYTES,
    name.length + FIELD_OVERHEAD_BYTES,
  );
}

/** What a recorded request costs in memory, roughly: its text, a byte a character, plus each field's slot. */
export function recordedBytes(request: RecordedRequest): number {
  let bytes = request.method.length + request.path.length + FIELD_OVERHEAD_BYTES;
  for (const [name, value] of Object.entries(request.query)) bytes += fieldBytes(name, value);
  for (const [name, value] of Object.entries(request.headers)) bytes += fieldBytes(name, value);
  return bytes;
}

export interface RequestLog {
  /** Oldest first; a live view, emptied only through `clear`. */
  readonly entries: RecordedRequest[];
  /** The `recordedBytes` of the entries, summed. */
  readonly bytes: number;
  add(request: RecordedRequest): void;
  clear(): void;
}

/** Keeps the most recent requests within `limits`, dropping the oldest; the newest always stays. */
export function createRequestLog(
  limits: { requests: number; bytes: number } = REQUEST_LOG_LIMITS,
): RequestLog {
  const entries: RecordedRequest[] = [];
  const sizes: number[] = [];
  let bytes = 0;
  return {
    entries,
    get bytes() {
      return bytes;
    },
    add(request) {
      const size = recordedBytes(request);
      entries.push(request);
      sizes.push(size);
      bytes += size;
      let drop = 0;
      while (entries.length - drop > 1 && (entries.length - drop > limits.requests || bytes > limits.bytes)) {
        bytes -= sizes[drop] ?? 0;
        drop++;
      }
      // One splice for all that goes: evicting one at a time would shift the array each time.
      if (drop > 0) {
        entries.splice(0, drop);
        sizes.splice(0, drop);
      }
    },
    clear() {
      entries.length = 0;
      sizes.length = 0;
      bytes = 0;
    },
  };
}

const ENDPOINTS = 'GET /api/v1/changes, GET /api/v1/models, GET /api/v1/models/{slug}/history, POST /api/mcp';
const HISTORY_PATH = /^\/api\/v1\/models\/([^/]+)\/history$/;
const ABSOLUTE_FORM_PREFIX = /^https?:\/\/[^/?#]*/i;

const AUTH_ERRORS: Record<AuthFailure, string> = {
  missing: 'Missing Authorization header: send "Authorization: Bearer <API key>".',
  malformed: 'Malformed Authorization header: expected "Bearer <API key>".',
  unknown:
    'API key not accepted: it is wrong or has been revoked. Create a new key on the account screen (it is shown once).',
};

type Route =
  | { name: 'changes' | 'models' | 'mcp'; method: 'GET' | 'POST' }
  | { name: 'history'; method: 'GET'; rawSlug: string };

function resolveRoute(path: string): Route | undefined {
  if (path === '/api/v1/changes') return { name: 'changes', method: 'GET' };
  if (path === '/api/v1/models') return { name: 'models', method: 'GET' };
  if (path === '/api/mcp') return { name: 'mcp', method: 'POST' };
  const rawSlug = HISTORY_PATH.exec(path)?.[1];
  return rawSlug === undefined ? undefined : { name: 'history', method: 'GET', rawSlug };
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    record[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return record;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function errorReply(status: number, message: string, headers: Record<string, string> = {}): Reply {
  return { status, body: { error: message }, headers };
}

function send(res: ServerResponse, reply: Reply): void {
  sendJson(res, reply.status, reply.body, reply.headers);
}

function limitReached(decision: QuotaDecision): Reply {
  const message =
    `Daily limit of ${decision.limit} calls reached (${decision.tier} tier). ` +
    `The count resets at 00:00 UTC, in ${decision.retryAfter} s.`;
  return errorReply(429, message, { 'retry-after': String(decision.retryAfter) });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function setRateLimitHeaders(res: ServerResponse, quota: QuotaDecision): void {
  res.setHeader('x-ratelimit-limit', String(quota.limit));
  res.setHeader('x-ratelimit-remaining', String(quota.remaining));
  res.setHeader('x-service-tier', quota.tier);
}

/** The sandbox service as a request handler: auth, daily limit, routes. No sockets here. */
export function createSandboxApp(options: SandboxAppOptions): SandboxApp {
  const { dataset, now, mcp, mcpAuthorities, log } = options;
  const seed = options.seed ?? 1;
  const keys = new KeyStore();
  const quota = new DailyQuota();
  const requestLog = createRequestLog();
  // Everything a request reads that can change: the feed, the catalog and price histories.
  let state: LiveState = initialLiveState(dataset);
  // Publications so far; each one's number goes into its event id.
  let sequence = 0;

  function record(req: IncomingMessage, path: string, params: URLSearchParams): void {
    const query = queryRecord(params);
    requestLog.add({ method: req.method ?? '', path, query, headers: { ...req.headers }, time: now() });
  }

  function history(rawSlug: string): Reply {
    let slug: string;
    try {
      slug = decodeURIComponent(rawSlug);
    } catch {
      return errorReply(400, `Invalid model slug in the path: "${rawSlug}" is not valid percent-encoding.`);
    }
    const found = state.histories.get(slug);
    if (found !== undefined) return { status: 200, body: found };
    const hint = 'the slug is the catalog id with every "/" replaced by "_", e.g. openai_gpt-4o';
    return errorReply(404, `Model "${slug}" is not in the catalog (${hint}).`);
  }

  /** The answer to an authenticated, counted request, or the tool endpoint's handler that will give it. */
  function answer(method: string, path: string, params: URLSearchParams): Reply | { delegate: McpHandler } {
    const target = resolveRoute(path);
    if (target === undefined) return errorReply(404, `No endpoint at ${path}. Endpoints: ${ENDPOINTS}.`);
    if (method !== target.method) {
      return errorReply(405, `${method} is not allowed on ${path}; use ${target.method}.`, {
        allow: target.method,
      });
    }
    switch (target.name) {
      case 'changes': {
        const query = parseChangesQuery(params);
        return query.ok
          ? { status: 200, body: queryFeed(state.feed, query.value) }
          : errorReply(400, query.error);
      }
      case 'models': {
        const filter = parseModelsQuery(params);
        if (!filter.ok) return errorReply(400, filter.error);
        const items = filterCatalog(state.catalog, filter.value);
        return { status: 200, body: { items, total: items.length } };
      }
      case 'history':
        return history(target.rawSlug);
      case 'mcp':
        return mcp === undefined
          ? errorReply(404, 'The tool endpoint /api/mcp is not enabled in this sandbox.')
          : { delegate: mcp };
    }
  }

  async function delegateToMcp(handler: McpHandler, req: IncomingMessage, res: ServerResponse, key: string) {
    try {
      await handler(req, res, key);
    } catch (error) {
      log?.('warn', `POST /api/mcp failed: ${describe(error)}`);
      if (res.headersSent) res.destroy();
      else send(res, errorReply(500, 'The tool endpoint failed; see the sandbox log.'));
    }
  }

  /**
   * Auth, then the record and the daily count, then the route: every authenticated call is recorded
   * and counts, whatever its answer; a refused one leaves no trace but the debug log line.
   */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? '';
    // An absolute-form target (RFC 9112 §3.2.2, sent by some proxies) is reduced to its path.
    const url = (req.url ?? '/').replace(ABSOLUTE_FORM_PREFIX, '') || '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const params = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
    res.once('finish', () => log?.('debug', `${method} ${path} ${res.statusCode}`));
    try {
      if (path === '/api/mcp' && mcpAuthorities !== undefined) {
        const refusal = hostOrOriginRefusal(
          { host: req.headers.host, origin: req.headers.origin },
          mcpAuthorities(),
        );
        if (refusal !== undefined) {
          send(res, errorReply(403, refusal));
          return;
        }
      }
      const auth = keys.authenticate(req.headers.authorization);
      if (!auth.ok) {
        // A refused key has no tier or count: a 401 carries no rate-limit headers.
        send(res, errorReply(401, AUTH_ERRORS[auth.reason], { 'www-authenticate': 'Bearer' }));
        return;
      }
      // Recorded only once authenticated: anyone who reaches the port could otherwise fill the
      // log with 16 KiB of headers a request (10,000 of them took the process from 71 to 226 MB).
      record(req, path, params);
      const decision = quota.consume(auth.keyHash, auth.tier, now());
      setRateLimitHeaders(res, decision);
      const outcome = decision.allowed ? answer(method, path, params) : limitReached(decision);
      if ('delegate' in outcome) void delegateToMcp(outcome.delegate, req, res, auth.key);
      else send(res, outcome);
    } catch (error) {
      log?.('warn', `${method} ${path} failed: ${describe(error)}`);
      if (!res.headersSent) send(res, errorReply(500, 'Internal error in the sandbox; see its log.'));
    }
  }

  return {
    handle,
    get requests() {
      return requestLog.entries;
    },
    clearRequests: () => requestLog.clear(),
    keys,
    setVerification: (eventId, status) => {
      const publication = { kind: 'verification', eventId, status } as const;
      state = applyPublication(state, publication, Math.floor(now() / 1000)).state;
    },
    publish: (kind) => {
      if (kind !== undefined && !LIVE_KINDS.includes(kind)) {
        throw new Error(`unknown kind of change "${String(kind)}"; expected ${LIVE_KINDS.join('|')}`);
      }
      const nowMs = now();
      const publication = generateChange(dataset, state, { seed, sequence: sequence + 1, nowMs, kind });
      const published = applyPublication(state, publication, Math.floor(nowMs / 1000));
      sequence += 1;
      state = published.state;
      const { id, title } = published.event;
      const outcome = publication.kind === 'verification' ? ` (now ${publication.status})` : '';
      log?.('info', `published ${publication.kind} ${id}: ${oneLine(title)}${outcome}`);
      return published.event;
    },
    publishMany: (count) => {
      if (!(Number.isSafeInteger(count) && count >= 0 && count <= MAX_PUBLISH_MANY)) {
        throw new RangeError(
          `publishMany: count must be a whole number from 0 to ${MAX_PUBLISH_MANY}; got ${count}`,
        );
      }
      if (count === 0) return;
      const backlog = publishBacklog(dataset, state, {
        seed,
        firstSequence: sequence + 1,
        count,
        nowMs: now(),
      });
      sequence += count;
      state = backlog.state;
      log?.('info', `published ${count} price_change events at once`);
    },
  };
}
