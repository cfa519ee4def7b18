/** `--http [host:]port` and `--host`: where the local HTTP endpoint listens, and the URL it prints. */

import { type AddressInfo, isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { addressBits, bareHost } from '../net/loopback.js';
import { echoValue } from '../text/redact.js';

export interface ListenAddress {
  /** Interface to bind, IPv6 without brackets. @default '127.0.0.1' */
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
}

export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** The MCP endpoint's path, the hosted endpoint's: a client config changes only host and port. */
export const MCP_PATH = '/api/mcp';

const ADDRESS = /^(?:(\[[^\]]*\]|[^:[\]]*):)?(\d{1,5})$/;

/**
 * What a host to bind is made of: letters, digits, dots and hyphens for a name, colons for IPv6 and
 * `%` for its zone. Anything else (a bidi mark, an escape, a byte that is no UTF-8), or a name
 * longer than DNS allows, would only reach the resolver, which answers with an EINVAL that reads
 * like our bug.
 */
const HOST_CHARACTERS = /^[A-Za-z0-9._:%-]+$/;

/**
 * `--host` of `--http` and of `sandbox`: an address or name alone; its port goes in its own flag,
 * so a colon is only IPv6's. `example` is how the message shows the fix.
 */
export function parseBindHost(raw: string, portFlag: string): string {
  const host = bareHost(raw.trim());
  const tooLong = host.length > 253 || host.split('.').some((label) => label.length > 63);
  if (!HOST_CHARACTERS.test(host) || tooLong || (host.includes(':') && isIP(host) !== 6)) {
    throw new ConfigError(
      `--host must be an address or host name to bind, without a port (that goes in ${portFlag}), e.g. --host 0.0.0.0 or --host ::1; got "${echoValue(raw, [])}".`,
      'host',
      '--host',
    );
  }
  return host;
}

/** The same host in two spellings: `LOCALHOST` and `localhost`, `0:0::1` and `::1`. */
function sameHost(a: string, b: string): boolean {
  const bits = addressBits(a);
  return a.toLowerCase() === b.toLowerCase() || (bits !== undefined && bits === addressBits(b));
}

/**
 * `--http`: `8080`, `127.0.0.1:8080`, `localhost:0`, `[::1]:8080`, `0.0.0.0:8080`. The host may
 * instead come from `--host` (`--http 8080 --host 0.0.0.0`). Named in both, it must be the same:
 * picking one of two would bind where the user may not have meant.
 */
export function parseHttpAddress(raw: string, hostFlag?: string): ListenAddress {
  const text = raw.trim();
  const match = ADDRESS.exec(text);
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new ConfigError(
      `--http must be [host:]port with a port from 0 to 65535 (0 picks a free one), e.g. --http 8080 or --http 127.0.0.1:8080; got "${echoValue(raw, [])}".`,
      'http',
      '--http',
    );
  }
  const inHttp = bareHost(match[1] ?? '');
  const inHost = hostFlag === undefined ? '' : parseBindHost(hostFlag, '--http');
  if (inHttp && inHost && !sameHost(inHttp, inHost)) {
    throw new ConfigError(
      `--http ${echoValue(text, [])} and --host ${echoValue(hostFlag ?? '', [])} name different hosts; name the host once, in either.`,
      'host',
      '--host',
    );
  }
  return { host: inHttp || inHost || DEFAULT_HTTP_HOST, port };
}

// Node reports an IPv4 address bound through an IPv6 socket this way.
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The endpoint's URL for the bound socket: a wildcard bind is printed as its loopback address,
 * which is where a client on this machine reaches it.
 */
export function endpointUrl(address: AddressInfo): string {
  const bound = IPV4_MAPPED.exec(address.address)?.[1] ?? address.address;
  const host = bound === '0.0.0.0' ? '127.0.0.1' : bound === '::' ? '::1' : bound;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}${MCP_PATH}`;
}
