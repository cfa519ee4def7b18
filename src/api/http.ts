/**
 * The resilience contract every upstream request goes through: bearer auth, one timeout bounding
 * the whole call (queueing, attempts and the waits between them) combined with the caller's abort
 * signal, retries for GETs on network errors, attempt timeouts and 502/503/504, a remembered 429,
 * a cap on concurrent requests, same-origin redirects only, a 10 MiB body cap, and the rate-limit
 * headers read on every response. Failures come out as the classes of errors.ts.
 */

import {
  AbortedError,
  ApiError,
  ModelFeedError,
  NetworkError,
  RateLimitError,
  type RequestFacts,
  TimeoutError,
  UnexpectedResponseError,
} from '../errors.js';
import type { Logger } from '../log.js';
import { isPermanentFailure, isProtocolFailure } from '../net/failure-kinds.js';
import { redact, secretValues } from '../text/redact.js';
import { oneLine } from '../text/terminal.js';
import { deadline, sleep } from './abort.js';
import { BodyLimitExceeded, inspectBody } from './body-limits.js';
import { ConcurrencyLimiter, QueueTimeout } from './limiter.js';
import type { PageGlimpse } from './page-glimpse.js';
import { parseRetryAfter, type RateLimitInfo, readRateLimit } from './rate-limit.js';
import { discard, ResponseTooLarge, readCapped } from './response-body.js';
import { attemptBudgetMs, backoffMs, isRetryableStatus, MAX_ATTEMPTS } from './retry.js';
import { errorCode } from './transport-failure.js';

/**
 * What a caller sends, never following redirects itself: the service client a GET, its idle warm-up
 * an OPTIONS without the key, the webhook sink a POST with a body.
 */
export interface RequestInitLike {
  method: 'GET' | 'OPTIONS' | 'POST';
  headers: Record<string, string>;
  /** The request body, sent as UTF-8 with its Content-Length; none for a GET. */
  body?: string;
  redirect: 'manual';
  signal: AbortSignal;
}

/**
 * The part of a fetch Response the client reads. A WHATWG Response has it (so unit tests hand in
 * msw's intercepted fetch); so does the production adapter over node:http (net/fetch.ts), which
 * skips fetch's stream machinery: a quarter of a millisecond and much garbage per call.
 */
export interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array> | null;
}

/** The fetch the client calls: the node:http adapter in production, msw's fetch in unit tests. */
export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>;

export type Query = Record<string, string | number | undefined>;

/** What a caller can still learn of a body that parsed but was refused (page-glimpse.ts). */
export type Glimpse = (body: unknown, secrets: readonly string[]) => PageGlimpse | undefined;

export interface HttpOptions {
  /** Validated base URL without a trailing slash. */
  baseUrl: string;
  /** Sent as a bearer token; absent for a public origin, which takes none. */
  apiKey?: string | undefined;
  /** Where the base URL was set, for error messages only (RequestFacts.baseUrlSetting). */
  baseUrlSetting?: string | undefined;
  /** Other values no message may show (Config.secrets); the key is always among them. */
  secrets?: readonly string[];
  fetch: FetchLike;
  userAgent: string;
  /** Bounds a whole call, queueing and retries included. */
  timeoutMs: number;
  /** The proxy requests go through, for error messages only (credentials removed). */
  proxyLabel: string | undefined;
  log: Logger;
  /** @default MAX_CONCURRENT_REQUESTS */
  maxConcurrent?: number;
  /** @default 10 MiB */
  maxBodyBytes?: number;
  now?: () => number;
  random?: () => number;
}

export interface JsonResponse {
  status: number;
  body: unknown;
  /** Length of the body's text: what a cache counts against its bound. */
  bytes: number;
  /** The request as it was finally made (attempts, full path), for errors about the body. */
  facts: RequestFacts;
}

/**
 * A small cap on concurrent upstream requests (and the connection pool matches it): a burst of
 * tool calls must not open a socket each; a proxy or the service may count connections.
 */
export const MAX_CONCURRENT_REQUESTS = 6;

const MAX_REDIRECTS = 5;
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The start of a body already made one line (`clean`), for a message. */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat || '(empty body)';
}

/** Longest stretch of the service's own words (an Error body, a socket message) quoted in a message. */
const MAX_QUOTED = 300;

/** Real keys are long and random; shorter secrets are hidden in messages but not in the data. */
const MIN_BODY_SECRET_LENGTH = 16;

/** A BOM before the JSON text is legal for a sender to add and for a reader to skip (RFC 8259 §8.1). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `x-service-tier` is quoted in messages and results: a short word, or nothing. */
function plausibleTier(tier: string | null, secrets: readonly string[]): string | null {
  if (tier === null || !/^[\w .-]{1,32}$/.test(tier)) return null;
  return secrets.some((secret) => tier.includes(secret)) ? null : tier;
}

/** What one attempt produced, before the retry decision. */
type AttemptOutcome =
  | { kind: 'response'; status: number; text: string; headers: ResponseLike['headers'] }
  | { kind: 'retryable'; error: ModelFeedError };

export class HttpClient {
  private readonly limiter: ConcurrencyLimiter;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly origin: string;
  private readonly host: string;
  /** The base URL's own path (e.g. `/feed`), so that errors show the path the service saw. */
  private readonly basePath: string;
  /** The last rate-limit state the service reported; cached answers report it as last seen. */
  private lastRateLimit: RateLimitInfo | undefined;
  /** The last 429, answered from memory until its retry-after passes. */
  private rateLimited: RateLimitError | undefined;
  /** The same on every request, so built once. */
  private readonly headers: Record<string, string>;
  /** The key and the other secrets, longest first: blanked in every message. */
  private readonly secrets: readonly string[];
  /** Those of them blanked inside bodies too. */
  private readonly bodySecrets: readonly string[];

  constructor(private readonly options: HttpOptions) {
    this.limiter = new ConcurrencyLimiter(options.maxConcurrent ?? MAX_CONCURRENT_REQUESTS);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.host = base.host;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.secrets = secretValues([options.apiKey, ...(options.secrets ?? [])]);
    // Only a value long enough to be a real key is blanked inside the data itself: a short one (a
    // test key such as "openai") would rewrite catalog ids. Messages still hide every secret.
    this.bodySecrets = this.secrets.filter((secret) => secret.length >= MIN_BODY_SECRET_LENGTH);
    this.headers = {
      ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }),
      accept: 'application/json',
      'user-agent': options.userAgent,
    };
  }

  get rateLimit(): RateLimitInfo | undefined {
    return this.lastRateLimit;
  }

  /**
   * Text that came from upstream (an Error body, a page, a socket error), as a message may quote it:
   * one line, without the key, escape sequences or control characters, and not a page long.
   */
  private clean(text: string): string {
    const flat = redact(oneLine(text), this.secrets);
    return flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED)}…` : flat;
  }

  /**
   * GET a JSON resource. `path` must already have its dynamic segments encoded; query values are
   * encoded here. Resolves with a 2xx body; anything else rejects with a ModelFeedError. `glimpse`
   * is asked about a body refused for the limits, and what it says goes with the error.
   */
  async getJson(path: string, query: Query, signal?: AbortSignal, glimpse?: Glimpse): Promise<JsonResponse> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) search.set(name, String(value));
    const pathAndQuery = search.size ? `${path}?${search}` : path;
    const facts: RequestFacts = {
      method: 'GET',
      path: `${this.basePath}${pathAndQuery}`,
      host: this.host,
      attempts: 0,
      proxy: this.options.proxyLabel,
      ...(this.options.baseUrlSetting && { baseUrlSetting: this.options.baseUrlSetting }),
    };
    // URL parsing resolves `.` and `..` segments, even percent-encoded ones: a value that would move
    // the request elsewhere (a catalog id of "..") is refused, never sent.
    if (new URL(`${this.options.baseUrl}${path}`).pathname !== `${this.basePath}${path}`) {
      throw new UnexpectedResponseError(
        `a catalog value would change the request path (${this.clean(path)}); not sent`,
        0,
        facts,
      );
    }
    this.throwIfRateLimited(facts);

    // No timer spans the call: each stage (the wait for a connection, each attempt, each pause
    // between attempts) is bounded by the time the call has left. That is one timer per attempt
    // instead of two, and none for the wait when a connection is free.
    const started = this.now();
    try {
      return await this.limiter.run(signal, this.options.timeoutMs, () =>
        this.withRetries(`${this.options.baseUrl}${pathAndQuery}`, facts, signal, started, glimpse),
      );
    } catch (error) {
      if (signal?.aborted) throw new AbortedError();
      if (error instanceof QueueTimeout) throw new TimeoutError(this.options.timeoutMs, { ...facts });
      throw error;
    }
  }

  /**
   * A remembered 429 stops a request before it is sent. Checked before every attempt, not only when
   * the call starts: calls queued behind the cap, and retries, must not spend what is left either.
   */
  private throwIfRateLimited(facts: RequestFacts): void {
    const limit = this.rateLimited;
    if (!limit || limit.retryAt === undefined) return;
    const now = this.now();
    if (now >= limit.retryAt) {
      this.rateLimited = undefined;
      return;
    }
    throw limit.remembered(now, { ...facts });
  }

  private async withRetries(
    url: string,
    facts: RequestFacts,
    signal: AbortSignal | undefined,
    started: number,
    glimpse: Glimpse | undefined,
  ) {
    const { timeoutMs } = this.options;
    for (;;) {
      this.throwIfRateLimited(facts);
      const remaining = timeoutMs - (this.now() - started);
      // A slot that freed up as the call's time ran out: sending now would only spend quota.
      if (remaining <= 0) throw new TimeoutError(timeoutMs, { ...facts });
      facts.attempts++;
      const budget = attemptBudgetMs(timeoutMs, remaining);
      const outcome = await this.attempt(url, facts, signal, budget);
      if (outcome.kind === 'response') return await this.interpret(outcome, facts, glimpse);
      // An attempt that ran out of the call's own time is the call timing out, not a retry.
      if (outcome.error instanceof TimeoutError && budget >= remaining) {
        throw new TimeoutError(timeoutMs, { ...facts });
      }

      const wait = backoffMs(facts.attempts, this.random);
      const left = timeoutMs - (this.now() - started);
      if (facts.attempts >= MAX_ATTEMPTS || wait >= left) throw outcome.error;
      this.options.log.debug('retrying', {
        path: facts.path,
        attempt: facts.attempts,
        waitMs: wait,
        after: outcome.error.message,
      });
      await sleep(wait, signal);
    }
  }

  /** One attempt: request, same-origin redirects, body read, all within the attempt's budget. */
  private async attempt(
    url: string,
    facts: RequestFacts,
    signal: AbortSignal | undefined,
    budgetMs: number,
  ): Promise<AttemptOutcome> {
    const attempt = deadline(signal, budgetMs);
    const t0 = this.now();
    let status = 0;
    try {
      let target = url;
      for (let hop = 0; ; hop++) {
        const response = await this.options.fetch(target, {
          method: 'GET',
          headers: this.headers,
          redirect: 'manual',
          signal: attempt.signal,
        });
        status = response.status;
        const location = response.headers.get('location');
        if (status >= 300 && status < 400 && location) {
          discard(response.body);
          let next: URL;
          try {
            next = new URL(location, target);
          } catch {
            throw new UnexpectedResponseError(
              `HTTP ${status} redirect with an invalid Location (${this.clean(location)}); not followed`,
              status,
              { ...facts },
            );
          }
          // The key goes only to the configured origin; a redirect elsewhere is reported instead.
          if (next.origin !== this.origin) {
            throw new UnexpectedResponseError(
              `HTTP ${status} redirect to ${next.origin}, another origin; not followed, so the API key is not sent there. If the service moved, set MODEL_FEED_BASE_URL to its new address`,
              status,
              { ...facts },
            );
          }
          if (hop >= MAX_REDIRECTS) {
            throw new UnexpectedResponseError(`more than ${MAX_REDIRECTS} redirects`, status, { ...facts });
          }
          target = next.href;
          continue;
        }
        // Every response reports the rate limit, a gateway failure on its way to a retry included.
        const rateLimit = readRateLimit(response.headers, this.now());
        if (rateLimit)
          this.lastRateLimit = { ...rateLimit, tier: plausibleTier(rateLimit.tier, this.secrets) };
        const text = await readCapped(
          response.body,
          response.headers.get('content-length'),
          this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        );
        this.options.log.debug('response', {
          path: facts.path,
          status,
          ms: this.now() - t0,
          attempt: facts.attempts,
        });
        if (isRetryableStatus(status)) {
          return {
            kind: 'retryable',
            error: ApiError.fromResponse(
              status,
              undefined,
              { ...facts },
              this.lastRateLimit,
              undefined,
              this.now(),
            ),
          };
        }
        return { kind: 'response', status, text, headers: response.headers };
      }
    } catch (error) {
      if (error instanceof ModelFeedError) throw error;
      if (error instanceof ResponseTooLarge) {
        const mib = Math.round((this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) / 1024 / 1024);
        throw new UnexpectedResponseError(`the body is larger than ${mib} MiB; refused`, status, {
          ...facts,
        });
      }
      if (signal?.aborted) throw error;
      if (attempt.timedOut()) {
        return { kind: 'retryable', error: new TimeoutError(budgetMs, { ...facts }) };
      }
      const { code, detail } = errorCode(error);
      if (isProtocolFailure(code)) {
        throw new UnexpectedResponseError(
          `malformed HTTP from the service (${code}: ${this.clean(detail)})`,
          status,
          { ...facts },
        );
      }
      const failure = new NetworkError(code, this.clean(detail), { ...facts });
      if (isPermanentFailure(code, detail)) throw failure;
      return { kind: 'retryable', error: failure };
    } finally {
      attempt.dispose();
    }
  }

  private async interpret(
    outcome: Extract<AttemptOutcome, { kind: 'response' }>,
    facts: RequestFacts,
    glimpse: Glimpse | undefined,
  ): Promise<JsonResponse> {
    const now = this.now();
    let body: unknown;
    let parsed = true;
    const text = withoutBom(outcome.text);
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = false;
    }
    const ok = outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      if (!parsed || body === undefined) {
        const type = outcome.headers.get('content-type') ?? 'no content-type';
        throw new UnexpectedResponseError(
          `not JSON (${this.clean(type)}): ${snippet(this.clean(outcome.text.slice(0, 4096)))}`,
          outcome.status,
          { ...facts },
        );
      }
      try {
        // The walk blanks only what is there: most bodies carry no secret, and skip that work.
        const present = this.bodySecrets.filter(
          (secret) => outcome.text.includes(secret) || outcome.text.includes('\\u'),
        );
        await inspectBody(body, present);
      } catch (error) {
        if (!(error instanceof BodyLimitExceeded)) throw error;
        // The limits are documented in the repository's docs/limits.md, which the package does not ship.
        throw new UnexpectedResponseError(
          `${error.message}, past what model-feed-mcp accepts from a service answer; refused`,
          outcome.status,
          { ...facts },
          glimpse?.(body, this.secrets),
        );
      }
      return { status: outcome.status, body, bytes: outcome.text.length, facts: { ...facts } };
    }
    const serviceMessage =
      parsed && body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
        ? this.clean((body as { error: string }).error)
        : undefined;
    const retryAfterS = parseRetryAfter(outcome.headers.get('retry-after'), now);
    const error = ApiError.fromResponse(
      outcome.status,
      serviceMessage,
      { ...facts },
      this.lastRateLimit,
      retryAfterS,
      now,
    );
    if (error instanceof RateLimitError) this.rateLimited = error;
    throw error;
  }
}
