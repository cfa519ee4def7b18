/**
 * The I/O behind the DNS, TCP and TLS checks: what the HTTP client does on its first request,
 * one step at a time so that a failure names its step, each step bounded by its own time limit.
 * Every function either resolves, rejects with a Node error (which carries a `code`), or rejects
 * with net/tunnel.ts's TunnelRefusedError or StepTimeoutError: none can hang.
 */

import type { Socket } from 'node:net';
import { nodeFs } from '../lazy-node.js';
import { secureChannel, withTimeout } from '../net/tunnel.js';
import type { ExtraCaFile } from './ca-check.js';

export { openTcp, openTunnel } from '../net/tunnel.js';

/**
 * The addresses of `host`, by `dns.lookup` (getaddrinfo), as sockets resolve names. A lookup
 * cannot be cancelled: past the limit it is reported and abandoned (the OS resolver ends it).
 */
export async function lookupHost(host: string, timeoutMs: number): Promise<string[]> {
  const { lookup } = process.getBuiltinModule('node:dns/promises');
  const found = await withTimeout(lookup(host, { all: true }), timeoutMs, () => {});
  return found.map((entry) => entry.address);
}

export interface TlsFacts {
  /** The issuer's common name (or organisation) of the service's certificate. */
  issuer: string | undefined;
  /** e.g. TLSv1.3 */
  protocol: string | null;
}

/** The TLS handshake with the service, SNI and certificate check for `host`; closes it after. */
export async function handshake(socket: Socket, host: string, timeoutMs: number): Promise<TlsFacts> {
  const secure = await secureChannel(socket, host, timeoutMs);
  try {
    const { issuer } = secure.getPeerCertificate();
    // A name field that occurs more than once arrives as an array.
    const name = issuer?.CN || issuer?.O;
    return { issuer: (Array.isArray(name) ? name[0] : name) || undefined, protocol: secure.getProtocol() };
  } finally {
    secure.destroy();
  }
}

/** NODE_EXTRA_CA_CERTS as Node would find it: readable or not, and how many certificates it holds. */
export async function readExtraCaFile(path: string): Promise<ExtraCaFile> {
  try {
    const pem = await nodeFs().readFile(path, 'utf8');
    return { path, certificates: pem.split('-----BEGIN CERTIFICATE-----').length - 1 };
  } catch (error) {
    return { path, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}
