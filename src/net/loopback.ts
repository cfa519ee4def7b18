import { isIP } from 'node:net';

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
  // Compared as an address, not a spelling: `0:0::1` and `::1%lo` are ::1 too.
  if (isIP(host) === 6) return addressBits(host) === 1n;
  return false;
}

/**
 * An IP address as one 128-bit number, IPv4 as its IPv4-mapped form (::ffff:a.b.c.d) the way Go
 * compares them, so a range test is a shift and a compare; undefined for anything but an address.
 * A few lines of our own: net.BlockList costs microseconds per rule added and per check.
 */
export function addressBits(address: string): bigint | undefined {
  const family = isIP(address);
  if (family === 4) return 0xffff_0000_0000n | ipv4Bits(address);
  if (family !== 6) return undefined;
  let text = address.replace(/%.*$/, ''); // a zone id names an interface, not part of the address
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1] !== undefined) {
    const v4 = ipv4Bits(tail[1]);
    text = `${text.slice(0, tail.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  // isIP has vouched for the shape: at most one `::`, which stands for as many zero groups as lack.
  const [head = '', rest] = text.split('::');
  const before = head ? head.split(':') : [];
  const after = rest ? rest.split(':') : [];
  const groups = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((bits, octet) => (bits << 8n) | BigInt(Number(octet)), 0n);
}
