/**
 * The one error hierarchy. Every failure the runner expects is one of these classes; each carries
 * the facts a person needs (status, host, attempts, proxy) and never the API key. The text users
 * read is composed from those facts in one place: `describeError` in `describe-error.ts`.
 */

import type { PageGlimpse } from './api/page-glimpse.js';
import type { RateLimitInfo } from './api/rate-limit.js';

export class ModelFeedError extends Error {
  override name = 'ModelFeedError';
}

/** A setting is missing or invalid. `setting` is the env var, `flag` the CLI flag, if any. */
export class ConfigError extends ModelFeedError {
  override name = 'ConfigError';
  /** What is wrong and how to fix it, without the other ways on. */
  readonly mistake: string;
  constructor(
    message: string,
    readonly setting: string,
    readonly flag?: string,
    /** Ways on that need no fix of this setting ("No account? …"), said after the fix. */
    readonly otherWays?: string,
  ) {
    super(otherWays ? `${message} ${otherWays}` : message);
    this.mistake = message;
  }
}

/**
 * The public source has no snapshot of an origin to answer from, and none could be taken now: the
 * origin is off or could not be read. `origin` names it for people, `setting` is its address.
 */
export class OriginUnavailableError extends ModelFeedError {
  override name = 'OriginUnavailableError';
  constructor(
    readonly origin: string,
    readonly setting: string,
    readonly reason: string,
    /** The origin is turned off, by its setting: nothing was tried. */
    readonly off = false,
  ) {
    super(`${origin}: ${reason}`);
  }
}

/** Tool arguments that do not fit the tool's input schema. */
export class InvalidArgumentsError extends ModelFeedError {
  override name = 'InvalidArgumentsError';
}

/** What every upstream failure says about the request that failed. */
export interface RequestFacts {
  method: string;
  /** Path and query of the request, e.g. `/api/v1/changes?since=0`. Never holds the key. */
  path: string;
  host: string;
  /** How many attempts were made, retries included. */
  attempts: number;
  /** The proxy the request went through, credentials removed; undefined when direct. */
  proxy: string | undefined;
  /** Where the base URL was set (`--base-url`, MODEL_FEED_BASE_URL), for a fix to name. */
  baseUrlSetting?: string | undefined;
}

/** The service answered with an HTTP error status. */
export class ApiError extends ModelFeedError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    /** The `error` text of the service's Error body, when it sent one. */
    readonly serviceMessage: string | undefined,
    readonly request: RequestFacts,
    readonly rateLimit: RateLimitInfo | undefined,
  ) {
    super(`HTTP ${status} from ${request.host} for ${request.method} ${request.path}`);
  }

  /** The single place where an HTTP status becomes an error class. */
  static fromResponse(
    status: number,
    serviceMessage: string | undefined,
    request: RequestFacts,
    rateLimit: RateLimitInfo | undefined,
    retryAfterS: number | undefined,
    now: number,
  ): ApiError {
    if (status === 401) return new AuthError(status, serviceMessage, request, rateLimit);
    if (status === 403) return new ForbiddenError(status, serviceMessage, request, rateLimit);
    if (status === 404) return new NotFoundError(status, serviceMessage, request, rateLimit);
    if (status === 429) {
      return new RateLimitError(serviceMessage, request, rateLimit, retryAfterS, now, false);
    }
    if (status >= 500) return new ServerError(status, serviceMessage, request, rateLimit);
    return new ApiError(status, serviceMessage, request, rateLimit);
  }
}

export class AuthError extends ApiError {
  override name = 'AuthError';
}

/** 403: refused, but not for the key (the service says 401 for that): often a proxy or web filter. */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}

export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

export class ServerError extends ApiError {
  override name = 'ServerError';
}

export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** When calls may resume (epoch ms); undefined when the service sent no usable `retry-after`. */
  readonly retryAt: number | undefined;
  constructor(
    serviceMessage: string | undefined,
    request: RequestFacts,
    rateLimit: RateLimitInfo | undefined,
    readonly retryAfterS: number | undefined,
    now: number,
    /** True when answered from memory of an earlier 429, without a request. */
    readonly fromMemory: boolean,
  ) {
    super(429, serviceMessage, request, rateLimit);
    this.retryAt = retryAfterS === undefined ? undefined : now + retryAfterS * 1000;
  }

  /** The same limit, reported again for a later call that was not sent. */
  remembered(now: number, request: RequestFacts): RateLimitError {
    const left = this.retryAt === undefined ? undefined : Math.max(1, Math.ceil((this.retryAt - now) / 1000));
    return new RateLimitError(this.serviceMessage, request, this.rateLimit, left, now, true);
  }
}

/** No HTTP answer: DNS, refused, reset, TLS, proxy failures. `code` is Node's or undici's code. */
export class NetworkError extends ModelFeedError {
  override name = 'NetworkError';
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly request: RequestFacts,
  ) {
    super(`${code} for ${request.method} ${request.host}${request.path}: ${detail}`);
  }
}

/** The whole call, retries included, did not finish within the configured timeout. */
export class TimeoutError extends ModelFeedError {
  override name = 'TimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly request: RequestFacts,
  ) {
    super(`no answer within ${timeoutMs} ms for ${request.method} ${request.host}${request.path}`);
  }
}

/** The MCP client cancelled the call; no result is sent for it. */
export class AbortedError extends ModelFeedError {
  override name = 'AbortedError';
  constructor() {
    super('cancelled by the client');
  }
}

/**
 * The request succeeded but the answer is unusable: not JSON, not the documented shape, too large,
 * or a redirect the runner will not follow. Kept apart from ApiError: HTTP worked, the data did not.
 */
export class UnexpectedResponseError extends ModelFeedError {
  override name = 'UnexpectedResponseError';
  constructor(
    readonly detail: string,
    readonly status: number,
    readonly request: RequestFacts,
    /** For a refused page of changes that still parsed: its first change and `latest`. */
    readonly glimpse?: PageGlimpse,
  ) {
    super(`unexpected response from the service: ${detail}`);
  }
}

/**
 * A change-feed page that parsed but breaks the cursor contract (a `latest` that cannot be the
 * change time of the page's last item). Following it would skip changes or replay the history
 * without a word, so the follower stops with the cursor where it was.
 */
export class FeedContractError extends UnexpectedResponseError {
  override name = 'FeedContractError';
  constructor(
    detail: string,
    request: RequestFacts,
    /** The cursor the page was asked after; still the saved one. undefined: none saved yet. */
    readonly cursor: number | undefined,
  ) {
    super(detail, 200, request);
  }
}

/**
 * Changes after `since` whose `latest` does not move past it: asking again would give the same page
 * forever. Told apart from an unreadable answer so the watcher refuses it as a broken contract
 * (FeedContractError) instead of hunting for a bad change; a tool call reports it as it reports
 * any unusable answer.
 */
export class CursorStuckError extends UnexpectedResponseError {
  override name = 'CursorStuckError';
}

/**
 * One change of the feed cannot be read (a string past the body limits, say), while the service
 * answers otherwise. Polling again meets it again, and moving past it would skip it silently: the
 * watcher stops, every change before it delivered and the cursor saved just before it, until the
 * user names it with `--skip`.
 */
export class UnreadableChangeError extends ModelFeedError {
  override name = 'UnreadableChangeError';
  constructor(
    /** The saved cursor: the unreadable change is the first one after it. */
    readonly cursor: number,
    override readonly cause: UnexpectedResponseError,
    /** Its id, when the refused answer still told it (a plain id, safe to show and to paste). */
    readonly changeId: string | undefined,
    /** The `--skip` given, which named another change (or one whose id could not be learned). */
    readonly skipGiven: string | undefined,
  ) {
    const which = changeId === undefined ? 'the change' : `the change "${changeId}"`;
    super(`${which} after change time ${cursor} cannot be read: ${cause.detail}`);
  }
}

/**
 * A sink did not accept a change. `permanent` failures (a 4xx other than 408/429 from a webhook)
 * are not attempted again; others are, with backoff, up to the watcher's max attempts.
 */
export class DeliveryError extends ModelFeedError {
  override name = 'DeliveryError';
  constructor(
    message: string,
    readonly permanent: boolean,
    /** The receiver's `retry-after`, in ms, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The watch state file cannot be read or written: the watcher stops rather than guess a cursor. */
export class StateFileError extends ModelFeedError {
  override name = 'StateFileError';
}

/**
 * A file the runner reads or writes (the watch state, its lock, a sink's file, our folders) could
 * not be used, for a reason the disk or the path gives: full, read-only, a folder in a file's place.
 */
export class FileSystemError extends ModelFeedError {
  override name = 'FileSystemError';
  constructor(
    /** What was being done, as the end of "cannot …": "write the watch state file". */
    readonly action: string,
    /** The user's file (not a temp file of ours beside it). */
    readonly path: string,
    /** Node's code: ENOSPC, EROFS, EACCES… */
    readonly code: string,
    /** Where the path came from, for the fix: "--state", "--jsonl", "XDG_STATE_HOME or --state". */
    readonly setting: string,
  ) {
    // The text a person reads is describeError's, which shows the path bounded and gives the fix.
    super(`cannot ${action} (${code})`);
  }

  /** Space can come back and a busy file be freed; a read-only disk or a bad path stays as it is. */
  get retryable(): boolean {
    return TRANSIENT_FILE_CODES.has(this.code);
  }
}

const TRANSIENT_FILE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EAGAIN',
  'EINTR',
]);

/**
 * The service could not be asked, or could not answer: the failures after which a catalog read may
 * be answered from an older copy (never the change feed).
 */
export function isServiceUnavailable(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    error instanceof ServerError ||
    error instanceof RateLimitError
  );
}
