/**
 * A corporate network in miniature, on loopback: the service behind TLS with a certificate from a
 * private CA, reachable only through a forwarding proxy that wants credentials. The service's host
 * name is one no DNS server knows; only the proxy's own table resolves it.
 */

import { rmSync } from 'node:fs';
import { makeCertificates, type TestCertificates } from './certs.js';
import { type HttpsSandbox, startHttpsSandbox } from './https-sandbox.js';
import { startProxy, type TestProxy } from './proxy.js';

export const HOST = 'feed.internal.test';
export const PROXY_USER = 'alice';
export const PROXY_PASSWORD = 's3cr3t-pr0xy';

export interface CorporateNetwork {
  certs: TestCertificates;
  service: HttpsSandbox;
  proxy: TestProxy;
  /** The service's base URL, by the name only the proxy resolves. */
  baseUrl: string;
  /** The proxy's URL with its credentials. */
  proxyUrl: string;
  close(): Promise<void>;
}

export async function startCorporateNetwork(apiKey: string): Promise<CorporateNetwork> {
  const certs = makeCertificates(HOST);
  const [service, proxy] = await Promise.all([
    startHttpsSandbox(certs, apiKey),
    startProxy({ hosts: { [HOST]: '127.0.0.1' }, credentials: `${PROXY_USER}:${PROXY_PASSWORD}` }),
  ]);
  return {
    certs,
    service,
    proxy,
    baseUrl: `https://${HOST}:${service.port}`,
    proxyUrl: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
    close: async () => {
      await Promise.all([service.close(), proxy.close()]);
      // The CA and keys were made for this network alone: nothing of them stays behind.
      rmSync(certs.dir, { recursive: true, force: true });
    },
  };
}
