/**
 * The one function that turns any error into the text a person (or a model) reads: what failed,
 * and what to do next. Never a stack trace, never the key.
 */

import { dirname } from 'node:path';
import type { Audience } from './audience.js';
import {
  AbortedError,
  ApiError,
  AuthError,
  ConfigError,
  DeliveryError,
  FeedContractError,
  FileSystemError,
  ForbiddenError,
  InvalidArgumentsError,
  NetworkError,
  NotFoundError,
  OriginUnavailableError,
  RateLimitError,
  type RequestFacts,
  ServerError,
  StateFileError,
  TimeoutError,
  UnexpectedResponseError,
  UnreadableChangeError,
} from './errors.js';
import { isCertificateFailure, isProxyAuthFailure, networkCodeWords } from './net/failure-kinds.js';
import { ownCommand } from './own-command.js';
import { echoPath } from './text/redact.js';

function caHint(audience: Audience): string {
  const where =
    audience === 'shell'
      ? 'in this shell (export NODE_EXTRA_CA_CERTS=/path/to/ca.pem)'
      : "in the server's env";
  return `If a proxy or TLS inspection re-signs traffic with a private CA, set NODE_EXTRA_CA_CERTS to that CA certificate (PEM file) ${where}; it is added to the default roots.`;
}

/**
 * The service's own words, quoted as the end of a sentence: its final full stop (or ? or !) also
 * ends ours, so no `.".` follows it.
 */
function quoted(serviceMessage: string): string {
  return /[.!?]$/.test(serviceMessage) ? `"${serviceMessage}"` : `"${serviceMessage}".`;
}

/**
 * `text` closed as a sentence: a full stop unless it already ends with one (or ? or !), as a
 * service's own words often do ("… POST /api/mcp." must not become "… /api/mcp..").
 */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A 401, said once: the service's own advice when it gives one, ours when it does not. */
function authText(error: AuthError): string {
  const head = `The service rejected the API key (HTTP ${error.status}): it is missing, wrong or revoked.`;
  const said = error.serviceMessage ? ` The service said: ${quoted(error.serviceMessage)}` : '';
  const advises =
    error.serviceMessage !== undefined && /\b(create|new|generate)\b.*\bkey\b/i.test(error.serviceMessage);
  const advice = advises
    ? ' Then set MODEL_FEED_API_KEY to the new key.'
    : " Create a new key on the service's account screen (it is shown once) and set MODEL_FEED_API_KEY to it.";
  return `${head}${said}${advice}`;
}

/** The one endpoint whose 404 means "not in the catalog"; elsewhere a 404 means a wrong address. */
const HISTORY_PATH = /\/api\/v1\/models\/[^/?]+\/history(\?|$)/;

/** The setting the base URL came from, as the user set it: a flag, the variable, or setup's prompt. */
function baseUrlSettingOf(request: RequestFacts): string {
  return request.baseUrlSetting ?? 'MODEL_FEED_BASE_URL';
}

/** What to do about a certificate error: only an unknown issuer calls for an extra CA. */
function certificateHint(code: string, request: RequestFacts, audience: Audience): string {
  const host = request.host;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return "The certificate is outside its validity dates: check this machine's clock, or tell whoever runs the service (or the TLS-inspecting proxy).";
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `The certificate is for another host name than ${host.replace(/:\d+$/, '')}: check ${baseUrlSettingOf(request)} (a TLS-inspecting proxy that signs for the wrong name needs fixing by IT).`;
  }
  return caHint(audience);
}

function attempts(facts: RequestFacts): string {
  return `${facts.attempts} attempt${facts.attempts === 1 ? '' : 's'}`;
}

function via(facts: RequestFacts): string {
  return facts.proxy ? ` via proxy ${facts.proxy}` : '';
}

function networkText(error: NetworkError, audience: Audience): string {
  const { request, code } = error;
  const where = `${request.host}${via(request)}`;
  if (isCertificateFailure(code)) {
    return `TLS certificate problem connecting to ${where}: ${error.detail} (${code}), after ${attempts(request)}. ${certificateHint(code, request, audience)}`;
  }
  if (isProxyAuthFailure(error.detail)) {
    return `The proxy ${request.proxy ?? ''} asked for authentication (407) when connecting to ${request.host}. Put credentials in the proxy URL: http://user:password@proxy:port.`;
  }
  const words = networkCodeWords(code) ?? error.detail;
  const hint =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? request.proxy
        ? ' Check the proxy host name.'
        : ` Check ${baseUrlSettingOf(request)}, or set HTTPS_PROXY if this network only reaches the internet through a proxy.`
      : ` Check the network, the proxy settings (run \`${ownCommand('doctor')}\`), and that the service is up.`;
  return `Could not reach ${where}: ${words} (${code}), after ${attempts(request)}.${hint}`;
}

/** An instant as ISO 8601 to the nearest second (retry-after itself has whole-second precision). */
function isoSeconds(epochMs: number): string {
  return new Date(Math.round(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function rateLimitText(error: RateLimitError): string {
  const tier = error.rateLimit?.tier ?? 'current';
  const limit = error.rateLimit?.limit;
  const perDay = limit === null || limit === undefined ? '' : ` (${limit} calls per day)`;
  const when =
    error.retryAfterS === undefined || error.retryAt === undefined
      ? 'Retry later.'
      : `Retry in ${error.retryAfterS} s, at ${isoSeconds(error.retryAt)}.`;
  const memory = error.fromMemory
    ? ' (No request was sent: the service reported the limit on an earlier call.)'
    : '';
  return `Daily limit reached for the ${tier} tier${perDay}. ${when}${memory} Higher limits are raised on request.`;
}

/**
 * @param audience who reads it: the MCP client's log (the server) or a person at a shell (`call`,
 * `doctor`, `watch`); it decides where a fix says to set a variable. @default 'client'
 */
export function describeError(error: unknown, audience: Audience = 'client'): string {
  if (error instanceof ConfigError || error instanceof InvalidArgumentsError) return error.message;
  if (error instanceof OriginUnavailableError) {
    if (error.off) {
      return `Nothing is recorded on this machine from ${error.origin}, and it is turned off (${error.setting}=off): set ${error.setting} to its address or a mirror's, or try --sandbox for sample data.`;
    }
    return `No usable record of ${error.origin} on this machine, and it could not be read now: ${error.reason}. Check the network and proxy (run \`${ownCommand('doctor --source public')}\`), point ${error.setting} at a mirror, or try --sandbox for sample data.`;
  }
  if (error instanceof StateFileError) return `The watch state file is unusable: ${error.message}.`;
  if (error instanceof FileSystemError) return fileSystemText(error);
  // A sink's own words already name the destination (never its secret parts) and the reason.
  if (error instanceof DeliveryError) return error.message;
  if (error instanceof AbortedError) return 'Cancelled by the client.';
  if (error instanceof AuthError) return authText(error);
  if (error instanceof RateLimitError) return rateLimitText(error);
  if (error instanceof ForbiddenError) {
    const said = error.serviceMessage ? ` It said: ${quoted(error.serviceMessage)}` : '';
    return `Access refused (HTTP 403 from ${error.request.host}${via(error.request)} for ${error.request.path}).${said} This is not a rejected key (that is a 401): a proxy or web filter may be blocking ${error.request.host}; ask for it to be allowed, and run \`${ownCommand('doctor')}\` to see the route.`;
  }
  if (error instanceof NotFoundError) {
    const said = error.serviceMessage ? `: ${error.serviceMessage}` : '';
    if (HISTORY_PATH.test(error.request.path)) {
      return sentence(`Not in the catalog (HTTP 404 for ${error.request.path})${said}`);
    }
    return `${sentence(`Nothing at ${error.request.host}${error.request.path} (HTTP 404)${said}`)} ${baseUrlSettingOf(error.request)} must be the service's base URL, without /api/v1 or /api/mcp.`;
  }
  if (error instanceof ServerError) {
    const said = error.serviceMessage ? ` It said: ${quoted(error.serviceMessage)}` : '';
    return `The service failed: HTTP ${error.status} from ${error.request.host}${via(error.request)} for ${error.request.path}, after ${attempts(error.request)}.${said} Try again later.`;
  }
  if (error instanceof ApiError) {
    const said = error.serviceMessage ? `: ${error.serviceMessage}` : '';
    return sentence(
      `The service refused the request (HTTP ${error.status} for ${error.request.path})${said}`,
    );
  }
  if (error instanceof TimeoutError) {
    if (error.request.attempts === 0) {
      return `No connection to ${error.request.host}${via(error.request)} came free within ${error.timeoutMs} ms: every one was busy with earlier, slower calls, so this one was never sent. Try again shortly, or raise MODEL_FEED_TIMEOUT_MS (--timeout).`;
    }
    return `No answer from ${error.request.host}${via(error.request)} within ${error.timeoutMs} ms (${attempts(error.request)}). Check the network or the proxy, or raise MODEL_FEED_TIMEOUT_MS (--timeout).`;
  }
  if (error instanceof NetworkError) return networkText(error, audience);
  if (error instanceof UnreadableChangeError) return unreadableChangeText(error);
  if (error instanceof FeedContractError) {
    const kept =
      error.cursor === undefined
        ? 'No cursor was saved'
        : `The cursor stays at ${error.cursor}: nothing after it was delivered or skipped`;
    const from = error.request.host ? ` at ${error.request.host}${via(error.request)}` : '';
    return `The answer of the service${from} to ${error.request.method} ${error.request.path} breaks the change feed's contract: ${error.detail}. ${kept}. Following it could skip changes or replay them all, so the watcher stopped; report it to the service, and run again once it answers correctly.`;
  }
  if (error instanceof UnexpectedResponseError) {
    // Status 0: no complete HTTP answer to name (a malformed one, or a request refused before sending).
    const status = error.status ? `HTTP ${error.status}, ` : '';
    return `Unexpected response from the service at ${error.request.host}${via(error.request)}: ${error.detail} (${status}${error.request.path}). Check that ${baseUrlSettingOf(error.request)} points at the Model Change Feed Service.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Internal error in model-feed-mcp: ${message}. Please report it.`;
}

/** The watcher stopped before one change: which, why, and the one way past it (`--skip <id>`). */
function unreadableChangeText(error: UnreadableChangeError): string {
  const { changeId: id, skipGiven: skip, cursor } = error;
  const which = id === undefined ? 'The change' : `The change "${id}"`;
  const found = `${which} after change time ${cursor} cannot be read: ${error.cause.detail} (${error.cause.request.method} ${error.cause.request.path}). The service answers otherwise, so the fault is this change. Every change before it was delivered; the cursor stays at ${cursor}, before it`;
  // The id given to --skip passed isPlainChangeId (watch/options.ts): safe to repeat.
  const given =
    skip === undefined
      ? ''
      : id === undefined
        ? ` --skip ${skip} was given, but the answer did not tell this change's id, so nothing was skipped.`
        : ` --skip ${skip} names another change, so nothing was skipped.`;
  const way =
    id === undefined
      ? ' Its id could not be learned from the answer, so it cannot be skipped by id; report it to the service.'
      : ` Report it to the service; to move past it without delivering it, run the same watch command again with --skip ${id} (recorded in the state file).`;
  return `${found}, and the watcher stopped rather than skip it.${given}${way}`;
}

/**
 * Why an older copy answers instead of the service (or another `subject`, a public origin), as the
 * end of "From the local cache, 3 h old: …".
 */
export function unavailableReason(error: unknown, subject = 'the service'): string {
  if (error instanceof NetworkError) return `${subject} is unreachable (${error.code})`;
  if (error instanceof TimeoutError) return `${subject} did not answer within ${error.timeoutMs} ms`;
  if (error instanceof RateLimitError) {
    const when = error.retryAt === undefined ? '' : `, calls resume at ${isoSeconds(error.retryAt)}`;
    // The daily limit is the service's; another origin only says to slow down.
    return subject === 'the service'
      ? `the daily limit is reached${when}`
      : `${subject} is rate-limiting (HTTP 429)${when.replace('calls resume', 'try again')}`;
  }
  if (error instanceof ServerError) return `${subject} answered HTTP ${error.status}`;
  if (error instanceof ApiError) return `${subject} answered HTTP ${error.status}`;
  if (error instanceof UnexpectedResponseError)
    return `${subject} sent an unexpected answer: ${error.detail}`;
  return `${subject} could not be asked`;
}

/** Node's file-system error codes, in words. */
const FILE_ERROR_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'too many symbolic links (a loop?)',
  ENAMETOOLONG: 'the path is too long',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EBUSY: 'the file is busy',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'an input/output error',
  EFBIG: 'the file is larger than this process may write',
};

/** Codes that mean something narrower when a folder of the path was being made. */
const FOLDER_ERROR_WORDS: Record<string, string> = {
  EEXIST: 'a part of the path is not a folder',
  ENOENT: 'a folder of the path cannot be made',
};

/** What to do about a file the runner could not use: by the reason, naming the setting to change. */
function fileSystemFix({ code, path, setting }: FileSystemError): string | undefined {
  const folder = echoPath(dirname(path));
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `Free some space on the disk that holds ${folder}, or give ${setting} a path on another disk.`;
    case 'EROFS':
      return `Give ${setting} a path on a writable disk.`;
    case 'EACCES':
    case 'EPERM':
      return `Check the owner and mode of the folder ${folder} and of the file (and its immutable flag: lsattr), or give ${setting} a path in a folder this user can use.`;
    case 'EISDIR':
      return `A folder is at that path: give ${setting} the path of a file.`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `A part of ${folder} is a file, not a folder: move it away, or give ${setting} another path.`;
    case 'EFBIG':
      return `Raise the file-size limit (ulimit -f), or give ${setting} another file.`;
    case 'ENAMETOOLONG':
      return `Give ${setting} a shorter path.`;
    case 'ENOENT':
      return `The folder ${folder} cannot be made: give ${setting} a path in a folder that exists.`;
    case 'ELOOP':
      return `Fix the symbolic links, or give ${setting} another path.`;
    default:
      return undefined;
  }
}

function fileSystemText(error: FileSystemError): string {
  const words = FILE_ERROR_WORDS[error.code] ?? FOLDER_ERROR_WORDS[error.code] ?? 'a file-system error';
  const fix = fileSystemFix(error);
  return `cannot ${error.action} ${echoPath(error.path)}: ${words} (${error.code}).${fix ? ` ${fix}` : ''}`;
}

/**
 * A failed read or write of a user's file, as the end of "cannot read <path>: …": the reason in
 * words with its code, and what to do when there is something to do.
 */
export function describeFileError(error: unknown): { reason: string; advice: string | undefined } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return { reason: describeError(error, 'shell'), advice: undefined };
  // Node's own words for the rarer codes: they name the code and the call.
  const words = FILE_ERROR_WORDS[code];
  if (words === undefined) return { reason: (error as Error).message, advice: undefined };
  const advice =
    code === 'EACCES' || code === 'EPERM'
      ? "Check the file's owner and mode, or run setup as the user whose file it is."
      : undefined;
  return { reason: `${words} (${code})`, advice };
}
