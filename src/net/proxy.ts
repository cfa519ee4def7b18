/**
 * Which proxy, if any, a request to a URL goes through, and why. Pure: `doctor` prints the same
 * decision the HTTP client acts on.
 */

import { isIP } from 'node:net';
import type { ProxySettings } from '../config.js';
import { displayUrl } from '../text/redact.js';
import { addressBits, bareHost, isLoopbackHost } from './loopback.js';

export interface ProxyChoice {
  /** The proxy URL to use (may carry credentials), or undefined for a direct connection. */
  proxy: string | undefined;
  /** Why, in words a person can check against their environment. */
  reason: string;
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** A block of addresses as 128-bit numbers (IPv4 mapped): those whose first `prefix` bits match `bits`. */
interface AddressRange {
  bits: bigint;
  prefix: number;
}

/** One NO_PROXY entry, taken apart: an address range, or a name (maybe led by `.` or `*.`). */
type NoProxyEntry = ({ range: AddressRange } | { name: string }) & {
  /** Set when the entry names a port: it then matches only that port. */
  port?: string | undefined;
};

const CIDR = /^([^/]+)\/(\d{1,3})$/;
const BRACKETED = /^\[([^\]]+)\](?::(\d+))?$/;
const WITH_PORT = /^(.*?):(\d+)$/;

// A trailing dot only marks a name as absolute: `example.com.` is the host `example.com`.
function withoutTrailingDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** `10.0.0.0` with 8 → the range; one address when no prefix is given. Undefined if not an address. */
function addressRange(address: string, prefix?: number): AddressRange | undefined {
  const bits = addressBits(address);
  if (bits === undefined) return undefined;
  // An IPv4 range sits in the IPv4-mapped block, 96 bits in.
  const offset = isIP(address) === 4 ? 96 : 0;
  const length = prefix ?? 128 - offset;
  return length <= 128 - offset ? { bits, prefix: length + offset } : undefined;
}

function inRange(bits: bigint, range: AddressRange): boolean {
  return (bits ^ range.bits) >> BigInt(128 - range.prefix) === 0n;
}

/** Undefined for an entry that cannot match anything (`10.0.0.0/33`, `intranet/8`). */
function parseNoProxyEntry(entry: string): NoProxyEntry | undefined {
  const cidr = CIDR.exec(entry);
  if (cidr) {
    const range = addressRange(bareHost(cidr[1] ?? ''), Number(cidr[2]));
    return range && { range };
  }
  // Checked before the port: `::1` is that address, not the host `:` on port 1.
  if (isIP(entry) === 6) return { range: addressRange(entry)! };
  const bracketed = BRACKETED.exec(entry);
  const withPort = bracketed ? null : WITH_PORT.exec(entry);
  const name = withoutTrailingDot(bracketed?.[1] ?? withPort?.[1] ?? entry);
  const port = bracketed?.[2] ?? withPort?.[2];
  const range = addressRange(name);
  return range ? { range, port } : { name, port };
}

/** `hostBits` is set when the target host is an IP address: only then can a range match (no DNS). */
function hostMatches(entry: NoProxyEntry, host: string, hostBits: bigint | undefined): boolean {
  if ('range' in entry) return hostBits !== undefined && inRange(hostBits, entry.range);
  const { name } = entry;
  if (!name) return false;
  if (name.startsWith('*.') || name.startsWith('.')) {
    return host.endsWith(name.startsWith('*.') ? name.slice(1) : name);
  }
  return host === name || host.endsWith(`.${name}`);
}

/**
 * NO_PROXY, read the way curl and Go read it: comma or space separated; `*` matches everything;
 * `example.com` matches that host and its subdomains; `.example.com` and `*.example.com` match
 * subdomains only; `host:port` matches only that port; an IP address, bare (`::1`) or bracketed
 * (`[::1]:8080`), matches that address however it is spelt; a range (`10.0.0.0/8`, `fd00::/8`)
 * matches a target written as an address in it, never a name (no DNS). A trailing dot on either
 * side is ignored. Returns the entry that matched.
 */
export function noProxyMatch(target: URL, noProxy: string | undefined): string | undefined {
  if (!noProxy) return undefined;
  const host = withoutTrailingDot(bareHost(target.hostname.toLowerCase()));
  const hostBits = addressBits(host);
  const port = target.port || defaultPort(target.protocol);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return entry;
    const parsed = parseNoProxyEntry(entry);
    if (parsed === undefined || (parsed.port !== undefined && parsed.port !== port)) continue;
    if (hostMatches(parsed, host, hostBits)) return entry;
  }
  return undefined;
}

export function chooseProxy(target: URL, settings: Readonly<ProxySettings>): ProxyChoice {
  const https = target.protocol === 'https:';
  // As undici and most tools do: an https target falls back to HTTP_PROXY when HTTPS_PROXY is unset.
  const [proxy, source] = settings.flag
    ? [settings.flag, '--proxy']
    : https && settings.https
      ? [settings.https, 'HTTPS_PROXY']
      : settings.http
        ? [settings.http, 'HTTP_PROXY']
        : [undefined, undefined];
  if (!proxy) return { proxy: undefined, reason: 'direct: no proxy configured' };
  if (isLoopbackHost(target.hostname)) {
    return { proxy: undefined, reason: 'direct: loopback addresses never go through a proxy' };
  }
  const matched = noProxyMatch(target, settings.noProxy);
  if (matched !== undefined) {
    return { proxy: undefined, reason: `direct: NO_PROXY entry "${matched}" matches ${target.hostname}` };
  }
  return { proxy, reason: `via ${displayUrl(proxy) ?? 'the proxy'} (from ${source})` };
}
