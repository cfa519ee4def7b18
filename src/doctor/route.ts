/** The path a request to the service takes: straight to it, or through a proxy's CONNECT tunnel. Pure. */

import { bareHost } from '../net/loopback.js';
import type { ProxyChoice } from '../net/proxy.js';
import { displayUrl } from '../text/redact.js';

export interface Endpoint {
  /** Host name or IP address, IPv6 without brackets (as DNS and sockets want it). */
  host: string;
  port: number;
}

export interface Route {
  service: Endpoint & {
    /** `host:port` as in the URL: what a CONNECT asks for and what messages name. */
    authority: string;
    https: boolean;
  };
  /** The proxy, when requests go through one; `label` is safe to print. */
  proxy: { url: URL; label: string } | undefined;
  /** Where this process itself opens its TCP connection: the proxy, or the service. */
  connect: Endpoint;
}

function endpoint(url: URL): Endpoint {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host: bareHost(url.hostname), port };
}

export function planRoute(baseUrl: string, choice: ProxyChoice): Route {
  const target = new URL(baseUrl);
  const direct = endpoint(target);
  const service = {
    ...direct,
    // CONNECT needs the port even when it is the scheme's default, which URL.host leaves out.
    authority: `${target.hostname}:${direct.port}`,
    https: target.protocol === 'https:',
  };
  if (choice.proxy === undefined) return { service, proxy: undefined, connect: direct };
  const proxyUrl = new URL(choice.proxy);
  return {
    service,
    proxy: { url: proxyUrl, label: displayUrl(choice.proxy) ?? 'the configured proxy' },
    connect: endpoint(proxyUrl),
  };
}
