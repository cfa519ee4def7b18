import { isIP } from 'node:net';

/** A URL hostname without the brackets IPv6 literals carry in URLs: `[::1]` → `::1`. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Loopback per the security rule: `localhost` (and names under `.localhost`), 127.0.0.0/8 and ::1.
 * Accepts a URL hostname, so IPv6 may come bracketed.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname.toLowerCase());
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}
