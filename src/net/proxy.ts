/**
 * Which proxy, if any, a request to a URL goes through, and why. Pure: `doctor` prints the same
 * decision the HTTP client acts on.
 */

import type { ProxySettings } from '../config.js';
import { displayUrl } from '../text/redact.js';
import { bareHost, isLoopbackHost } from './loopback.js';

export interface ProxyChoice {
  /** The proxy URL to use (may carry credentials), or undefined for a direct connection. */
  proxy: string | undefined;
  /** Why, in words a person can check against their environment. */
  reason: string;
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/**
 * NO_PROXY, read the way curl and Go read it: comma or space separated; `*` matches everything;
 * `example.com` matches that host and its subdomains; `.example.com` and `*.example.com` match
 * subdomains only; `host:port` matches only that port.
 */
export function noProxyMatch(target: URL, noProxy: string | undefined): string | undefined {
  if (!noProxy) return undefined;
  const host = bareHost(target.hostname.toLowerCase());
  const port = target.port || defaultPort(target.protocol);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return entry;
    // An IPv6 entry may be bracketed, with or without a port: [::1]:8080.
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const portMatch = bracketed ? null : /^(.*?):(\d+)$/.exec(entry);
    const name = bracketed?.[1] ?? portMatch?.[1] ?? entry;
    const entryPort = bracketed?.[2] ?? portMatch?.[2];
    if (entryPort !== undefined && entryPort !== port) continue;
    if (name.startsWith('*.') || name.startsWith('.')) {
      const suffix = name.startsWith('*.') ? name.slice(1) : name;
      if (host.endsWith(suffix)) return entry;
    } else if (host === name || host.endsWith(`.${name}`)) {
      return entry;
    }
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
