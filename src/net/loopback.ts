import { BlockList, isIP } from 'node:net';

/** A URL hostname without the brackets IPv6 literals carry in URLs: `[::1]` → `::1`. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Loopback per the security rule, and nothing else: exactly `localhost`, 127.0.0.0/8 and ::1.
 * Accepts a URL hostname, so IPv6 may come bracketed; any spelling of ::1 counts, since a `--host`
 * value reaches here without `new URL()` having shortened it.
 *
 * Names under `.localhost` do not count: the runner asks the system resolver like for any other
 * name, and a resolver, a search domain or /etc/hosts may send them off the machine. They unlock
 * neither plain http for the key nor a direct connection past the proxy.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname.toLowerCase());
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return isIpv6Loopback(host);
  return false;
}

/** Compares addresses, not spellings: `0:0::1` and `::1%lo` are ::1 too. */
function isIpv6Loopback(address: string): boolean {
  const loopback = new BlockList();
  loopback.addAddress('::1', 'ipv6');
  return loopback.check(address, 'ipv6');
}
