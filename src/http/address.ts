/** `--http [host:]port`: where the local HTTP endpoint listens, and the URL it prints. */

import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors.js';
import { bareHost } from '../net/loopback.js';

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

/** `8080`, `127.0.0.1:8080`, `localhost:0`, `[::1]:8080`, `0.0.0.0:8080`. */
export function parseHttpAddress(raw: string): ListenAddress {
  const text = raw.trim();
  const match = ADDRESS.exec(text);
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new ConfigError(
      `--http must be [host:]port with a port from 0 to 65535 (0 picks a free one), e.g. --http 8080 or --http 127.0.0.1:8080; got "${raw}".`,
      'http',
      '--http',
    );
  }
  const host = bareHost(match[1] ?? '') || DEFAULT_HTTP_HOST;
  return { host, port };
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
