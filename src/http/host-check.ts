/**
 * DNS-rebinding protection for a local MCP endpoint (the MCP transport specification asks local
 * servers to check Origin, and to bind loopback). A web page whose own name an attacker resolves to
 * 127.0.0.1 reaches the port with its own name in Host and its own origin in Origin; both are
 * checked against the names this machine's clients use for the bound socket. Shared by `--http`
 * and the sandbox's `/api/mcp`; pure apart from reading the interface list of a wildcard bind.
 *
 * Stricter than the SDK's own middleware, which ignores the port: a page served from another port
 * on this machine (a dev server running third-party code) is a foreign origin too.
 */

import { networkInterfaces } from 'node:os';
import { bareHost } from '../net/loopback.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** `::`, `0.0.0.0` and their mapped spelling: every interface. */
export function isWildcardHost(host: string): boolean {
  return /^(0\.0\.0\.0|::ffff:0\.0\.0\.0|[0:]+)$/i.test(bareHost(host));
}

/** A host as it appears in a Host header or URL: IPv6 literals bracketed, lower case. */
function hostForm(host: string): string {
  const bare = bareHost(host.toLowerCase());
  return bare.includes(':') ? `[${bare}]` : bare;
}

/**
 * The `host:port` values a legitimate client sends for a socket bound to `host:port`: the loopback
 * names, the bound host itself, and for a wildcard bind every address of this machine's
 * interfaces. Port 80 is also accepted without the port, as browsers and clients send it.
 */
export function allowedAuthorities(
  bound: { host: string; port: number },
  interfaces: () => string[] = interfaceAddresses,
): ReadonlySet<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  if (isWildcardHost(bound.host)) for (const address of interfaces()) names.add(hostForm(address));
  else names.add(hostForm(bound.host));
  const authorities = new Set<string>();
  for (const name of names) {
    authorities.add(`${name}:${bound.port}`);
    if (bound.port === 80) authorities.add(name);
  }
  return authorities;
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((each) => each.address));
}

/** A header value quoted back: whatever the sender put there, a few dozen characters of it. */
function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

/**
 * Why a request must be refused (403), or undefined when its Host is one of `allowed` and its
 * Origin is absent or `http://` plus one of `allowed`. The message names what was expected, so a
 * user behind an unusual setup (a reverse proxy rewriting Host) can see why.
 */
export function hostOrOriginRefusal(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: ReadonlySet<string>,
): string | undefined {
  const expected = [...allowed].slice(0, 3).join(', ');
  const host = headers.host?.trim().toLowerCase();
  if (!host || !allowed.has(host)) {
    return `Forbidden: Host "${clip(host ?? '')}" is not this local server (expected one of ${expected}); requests from other names are refused to stop DNS rebinding.`;
  }
  const origin = headers.origin?.trim();
  if (origin === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' || !allowed.has(parsed.host.toLowerCase())) {
    return `Forbidden: Origin "${clip(origin)}" is not this local server (expected none, or http:// and one of ${expected}); web pages of other origins may not call it.`;
  }
  return undefined;
}
