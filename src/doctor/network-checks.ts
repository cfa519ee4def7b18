/**
 * The network checks in the order a request meets them: DNS, TCP, TLS (through the proxy's tunnel
 * when there is one), then a request: to the service, authenticated, and the rate limit it reports;
 * to a public origin, one GET of its resource. Once a step fails, the later ones are reported as
 * skipped, naming the step that stopped them.
 */

import type { Socket } from 'node:net';
import type { RateLimitInfo } from '../api/rate-limit.js';
import { type Check, type CheckId, skipped } from './check.js';
import {
  authFailed,
  authPassed,
  checkRateLimit,
  type Destination,
  dnsFailed,
  dnsPassed,
  serviceDestination,
  type TlsStage,
  tcpFailed,
  tcpPassed,
  tlsFailed,
  tlsPassed,
} from './network-outcomes.js';
import type { TlsFacts } from './probes.js';
import type { Route } from './route.js';

/** The I/O the checks need; probes.ts in production, fakes in unit tests. */
export interface Probes {
  lookupHost(host: string, timeoutMs: number): Promise<string[]>;
  openTcp(host: string, port: number, timeoutMs: number): Promise<Socket>;
  openTunnel(socket: Socket, proxy: URL, authority: string, timeoutMs: number): Promise<Socket>;
  handshake(socket: Socket, host: string, timeoutMs: number): Promise<TlsFacts>;
}

export interface AuthResult {
  changes: number;
  rateLimit: RateLimitInfo | undefined;
}

export interface NetworkPlan {
  /** undefined when there is no usable base URL. */
  route: Route | undefined;
  /** Where the base URL was set (a flag or a variable); undefined for the default. */
  baseUrlSetting: string | undefined;
  /** Each step's own limit. */
  timeoutMs: number;
  /** One authenticated request through the real client; undefined when there is no key. */
  authenticate: (() => Promise<AuthResult>) | undefined;
}

export type Timed<T> = { ms: number } & ({ ok: true; value: T } | { ok: false; error: unknown });

export async function timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const value = await work();
    return { ok: true, value, ms: ms() };
  } catch (error) {
    return { ok: false, error, ms: ms() };
  }
}

/** The tunnel through the proxy, if any, then the handshake with the destination, timed as one step. */
async function checkTls(
  route: Route,
  socket: Socket,
  timeoutMs: number,
  probes: Probes,
  to: Destination,
): Promise<Check> {
  let stage: TlsStage = route.proxy ? 'tunnel' : 'handshake';
  const tls = await timed(async () => {
    const channel = route.proxy
      ? await probes.openTunnel(socket, route.proxy.url, route.service.authority, timeoutMs)
      : socket;
    stage = 'handshake';
    return probes.handshake(channel, route.service.host, timeoutMs);
  });
  return tls.ok ? tlsPassed(route, tls.value, tls.ms) : tlsFailed(route, tls.error, tls.ms, stage, to);
}

export interface Connection {
  /** DNS, TCP, and TLS for an https address. */
  checks: Check[];
  /** Why the request cannot be made: the first step that failed; undefined when all passed. */
  stopper: string | undefined;
}

/** DNS, TCP and TLS to `route`, each bounded by `timeoutMs`; the steps after a failure are skipped. */
export async function runConnectionChecks(
  route: Route,
  timeoutMs: number,
  probes: Probes,
  to: Destination,
): Promise<Connection> {
  const checks: Check[] = [];
  let stopper: string | undefined;
  const record = (result: Check): void => {
    checks.push(result);
    if (result.status === 'fail') stopper ??= `${result.title} failed`;
  };

  const dns = await timed(() => probes.lookupHost(route.connect.host, timeoutMs));
  record(dns.ok ? dnsPassed(route, dns.value, dns.ms) : dnsFailed(route, dns.error, dns.ms, to));

  let socket: Socket | undefined;
  try {
    if (stopper) {
      record(skipped('tcp', stopper));
    } else {
      const tcp = await timed(() => probes.openTcp(route.connect.host, route.connect.port, timeoutMs));
      if (tcp.ok) socket = tcp.value;
      record(tcp.ok ? tcpPassed(route, tcp.ms) : tcpFailed(route, tcp.error, tcp.ms, to));
    }
    // Plain http is allowed to loopback only, which is never proxied: no TLS, no tunnel to check.
    if (route.service.https) {
      record(
        stopper === undefined && socket !== undefined
          ? await checkTls(route, socket, timeoutMs, probes, to)
          : skipped('tls', stopper ?? 'TCP failed'),
      );
    }
  } finally {
    socket?.destroy();
  }
  return { checks, stopper };
}

const ALL_STEPS: CheckId[] = ['dns', 'tcp', 'tls', 'auth', 'rate-limit'];

export async function runNetworkChecks(plan: NetworkPlan, probes: Probes): Promise<Check[]> {
  const { route, timeoutMs } = plan;
  if (route === undefined) {
    return ALL_STEPS.map((id) => skipped(id, 'no usable base URL (see Settings)'));
  }
  const service = serviceDestination(plan.baseUrlSetting);
  const { checks, stopper } = await runConnectionChecks(route, timeoutMs, probes, service);
  const authenticate = stopper === undefined ? plan.authenticate : undefined;
  if (authenticate === undefined) {
    const reason = stopper ?? 'no API key (see Settings)';
    return [...checks, skipped('auth', reason), skipped('rate-limit', reason)];
  }
  const auth = await timed(authenticate);
  return [
    ...checks,
    auth.ok ? authPassed(auth.value.changes, auth.ms) : authFailed(auth.error, auth.ms),
    auth.ok ? checkRateLimit(auth.value.rateLimit, service) : skipped('rate-limit', 'Authentication failed'),
  ];
}
