/**
 * Whether a base URL is the service, asked before any key is typed: the service answers a request
 * without a key with 401 (service.md), so a 401 says the address is right, and anything else says
 * it is not. Said in words about the address, which setup's prompt asks again at once; a key typed
 * afterwards would be checked against an address that cannot answer.
 */

import { createApiClient } from '../../api/client.js';
import type { Config } from '../../config.js';
import { unavailableReason } from '../../describe-error.js';
import { AuthError, NetworkError, NotFoundError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { createNetworkFetch } from '../../net/fetch.js';
import { isLoopbackHost } from '../../net/loopback.js';
import { chooseProxy } from '../../net/proxy.js';
import { redactSecrets } from '../../text/redact.js';
import { oneLine } from '../../text/terminal.js';
import { USER_AGENT } from '../../version.js';

/** Why an address is not the service, and the address most likely meant, if any. */
export interface NotTheService {
  problem: string;
  offer?: string;
}

/** TLS spoken to a server that answers in plain http: OpenSSL's "wrong version number". */
function plainHttpAnswer(error: NetworkError): boolean {
  return (
    error.code === 'EPROTO' ||
    error.code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    /wrong version number/i.test(error.detail)
  );
}

/** `baseUrl` without a key: undefined when it is the service, else why it is not. */
export async function checkServiceAt(
  baseUrl: string,
  config: Config,
  log: Logger,
): Promise<NotTheService | undefined> {
  const url = new URL(baseUrl);
  const network = createNetworkFetch(chooseProxy(url, config.proxy).proxy, 1);
  const api = createApiClient({
    baseUrl,
    secrets: config.secrets,
    fetch: network.fetch,
    userAgent: USER_AGENT,
    timeoutMs: config.timeoutMs,
    cacheTtlMs: 0,
    proxyLabel: undefined,
    describeUnavailable: (error) => unavailableReason(error),
    log,
  });
  const shown = redactSecrets(oneLine(baseUrl), config.secrets);
  try {
    await api.listChanges({ limit: 1 });
    return undefined;
  } catch (error) {
    if (error instanceof AuthError) return undefined;
    if (error instanceof NetworkError && url.protocol === 'https:' && plainHttpAnswer(error)) {
      const http = `http://${url.host}${url.pathname.replace(/\/+$/, '')}`;
      return {
        problem: `${shown} answers in plain http, not https.`,
        ...(isLoopbackHost(url.hostname) && { offer: http }),
      };
    }
    if (error instanceof NotFoundError) {
      return {
        problem: `${shown} did not answer as the service: nothing at ${url.pathname.replace(/\/+$/, '')}/api/v1/changes (HTTP 404). Use the base URL that comes with your account, without /api/v1 or /api/mcp.`,
      };
    }
    if (error instanceof NetworkError || error instanceof TimeoutError) {
      return {
        problem: `${unavailableReason(error, shown)}: check the address, and that the service is up.`,
      };
    }
    return {
      problem: `${shown} did not answer as the service: ${unavailableReason(error, 'it')}.`,
    };
  } finally {
    await network.close();
  }
}
