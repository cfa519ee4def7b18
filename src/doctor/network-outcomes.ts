/**
 * What each network step's result means for the user: the check line and what to do. Pure.
 * Certificate and proxy-credential failures are worded by describeError, exactly as a tool call
 * that hit them would be.
 */

import { isRunningLow, type RateLimitInfo } from '../api/rate-limit.js';
import { ENV } from '../config.js';
import { describeError } from '../describe-error.js';
import { ModelFeedError, NetworkError } from '../errors.js';
import { isCertificateFailure, networkCodeWords } from '../net/failure-kinds.js';
import { TunnelRefusedError } from '../net/tunnel.js';
import { type Check, check } from './check.js';
import type { TlsFacts } from './probes.js';
import type { Route } from './route.js';

export const AUTH_PATH = '/api/v1/changes?limit=1';

/** Where the checked requests go, as the fixes name it. */
export interface Destination {
  /** The setting that holds its address, e.g. MODEL_FEED_BASE_URL. */
  setting: string;
  /** The flag that sets it too, if any. */
  flag: string | undefined;
  /** For people: "the service", "models.dev". */
  name: string;
  /** The path and query doctor asks for there. */
  path: string;
}

/**
 * The service, its address named as the user set it: the flag or the variable they used, or both
 * spellings when the default is in use.
 */
export function serviceDestination(baseUrlSetting: string | undefined): Destination {
  return {
    setting: baseUrlSetting ?? ENV.baseUrl,
    flag: baseUrlSetting === undefined ? '--base-url' : undefined,
    name: 'the service',
    path: AUTH_PATH,
  };
}

/** A probe failure as its code and words; every Node network error carries a `code`. */
export function failureOf(error: unknown): { code: string; words: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const raw = (error as { code?: unknown } | undefined)?.code;
  const code = typeof raw === 'string' && raw ? raw : 'ERROR';
  return { code, words: networkCodeWords(code) ?? message, message };
}

const USE_A_PROXY = `If this network reaches the internet only through a proxy, set HTTPS_PROXY (or --proxy) to it.`;

function where(route: Route): string {
  const { host, port } = route.connect;
  const name = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return route.proxy ? `the proxy ${name}` : name;
}

export function dnsPassed(route: Route, addresses: readonly string[], ms: number): Check {
  const shown = `${route.connect.host} → ${addresses.slice(0, 3).join(', ')}`;
  const detail = route.proxy
    ? `proxy ${shown}; ${route.service.host} itself is resolved by the proxy`
    : shown;
  return check('dns', { status: 'pass', detail, ms });
}

export function dnsFailed(route: Route, error: unknown, ms: number, to: Destination): Check {
  const { code, words } = failureOf(error);
  const name = route.proxy ? `proxy host ${route.connect.host}` : route.connect.host;
  return check('dns', {
    status: 'fail',
    detail: `${name}: ${words} (${code})`,
    fix: route.proxy
      ? `Check the host name of the proxy ${route.proxy.label}.`
      : `Check the host name in ${to.setting}${to.flag ? ` (${to.flag})` : ''}. ${USE_A_PROXY}`,
    ms,
  });
}

export function tcpPassed(route: Route, ms: number): Check {
  return check('tcp', { status: 'pass', detail: `connected to ${where(route)}`, ms });
}

export function tcpFailed(route: Route, error: unknown, ms: number, to: Destination): Check {
  const { code, words } = failureOf(error);
  let fix: string;
  if (code === 'ECONNREFUSED') {
    fix = route.proxy
      ? 'Nothing accepts connections there: check the port of the proxy and that it is running.'
      : `Nothing accepts connections there: check the port in ${to.setting} and that ${to.name} is running.`;
  } else {
    fix = route.proxy
      ? 'Check that the proxy is reachable from this machine (VPN, firewall).'
      : `A firewall may be dropping the connection. ${USE_A_PROXY}`;
  }
  return check('tcp', { status: 'fail', detail: `${where(route)}: ${words} (${code})`, fix, ms });
}

function through(route: Route): string {
  return route.proxy ? `, through a CONNECT tunnel via ${route.proxy.label}` : '';
}

export function tlsPassed(route: Route, facts: TlsFacts, ms: number): Check {
  const issuer = facts.issuer ? `issued by ${facts.issuer}` : 'issuer without a name';
  const protocol = facts.protocol ? ` (${facts.protocol})` : '';
  return check('tls', {
    status: 'pass',
    detail: `certificate of ${route.service.host} verified, ${issuer}${protocol}${through(route)}`,
    ms,
  });
}

/** Where TLS failed: opening the proxy's tunnel (TLS to an https:// proxy included), or the handshake with the service. */
export type TlsStage = 'tunnel' | 'handshake';

export function tlsFailed(route: Route, error: unknown, ms: number, stage: TlsStage, to: Destination): Check {
  const { code, words, message } = failureOf(error);
  // Built the way the HTTP client reports the same failure, so describeError words it the same.
  const asTheClientSeesIt = (detail: string) =>
    describeError(
      new NetworkError(code, detail, {
        method: 'GET',
        path: to.path,
        host: route.service.authority,
        attempts: 1,
        proxy: route.proxy?.label,
      }),
      'shell',
    );
  const target = route.service.authority;
  const proxy = route.proxy?.label ?? '';
  if (error instanceof TunnelRefusedError) {
    const detail = `the proxy ${proxy} refused the tunnel to ${target}: ${error.statusLine}`;
    const fix =
      error.status === 407
        ? asTheClientSeesIt(`proxy responded ${error.status}`)
        : `Check that the proxy allows CONNECT to ${target} (an egress allow-list may need it) and that the host name is right.`;
    return check('tls', { status: 'fail', detail, fix, ms });
  }
  if (isCertificateFailure(code)) {
    const peer = stage === 'tunnel' ? `the proxy ${proxy}` : route.service.host;
    const path = stage === 'tunnel' ? '' : through(route);
    return check('tls', {
      status: 'fail',
      detail: `certificate of ${peer} not accepted: ${message} (${code})${path}`,
      fix: asTheClientSeesIt(message),
      ms,
    });
  }
  if (stage === 'tunnel') {
    return check('tls', {
      status: 'fail',
      detail: `CONNECT to ${target} via ${proxy} failed: ${words} (${code})`,
      fix: `Check that the proxy is running and accepts CONNECT to ${target} (an egress allow-list may need it).`,
      ms,
    });
  }
  return check('tls', {
    status: 'fail',
    detail: `TLS with ${target} failed: ${words} (${code})${through(route)}`,
    fix: `Check that ${to.setting} points at ${to.name}'s HTTPS address; a proxy or firewall may be interfering.`,
    ms,
  });
}

export function authPassed(changes: number, ms: number): Check {
  return check('auth', {
    status: 'pass',
    detail: `key accepted: GET ${AUTH_PATH} returned ${changes} change${changes === 1 ? '' : 's'}`,
    ms,
  });
}

export function authFailed(error: unknown, ms: number): Check {
  // Every ModelFeedError message names the request and never holds the key.
  const what = error instanceof ModelFeedError ? error.message : 'the request failed';
  return check('auth', { status: 'fail', detail: what, fix: describeError(error, 'shell'), ms });
}

export function checkRateLimit(info: RateLimitInfo | undefined, to: Destination): Check {
  if (info === undefined) {
    return check('rate-limit', {
      status: 'warn',
      detail:
        'the service sent no rate-limit headers (x-ratelimit-limit, x-ratelimit-remaining, x-service-tier)',
      fix: `Check that ${to.setting} points at the Model Change Feed Service itself, not a gateway that drops headers.`,
    });
  }
  const detail = `tier ${info.tier ?? 'unknown'}: ${info.remaining ?? '?'} of ${info.limit ?? '?'} calls left today`;
  if (isRunningLow(info)) {
    return check('rate-limit', {
      status: 'warn',
      detail: `${detail} (under 5%)`,
      fix: 'The count resets at 00:00 UTC; higher limits are raised on request.',
    });
  }
  return check('rate-limit', { status: 'pass', detail });
}
