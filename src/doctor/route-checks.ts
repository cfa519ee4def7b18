/** The Base URL and Proxy checks: where requests go, and through what. Pure. */

import type { ProxyChoice } from '../net/proxy.js';
import { type Check, check, skipped } from './check.js';

const NO_BASE_URL = 'no usable base URL (see Settings)';

export function checkBaseUrl(baseUrl: string | undefined): Check {
  if (baseUrl === undefined) return skipped('base-url', NO_BASE_URL);
  const url = new URL(baseUrl);
  // resolveConfig already refused anything else: https, or plain http to loopback only.
  const rule =
    url.protocol === 'https:'
      ? 'https: the key travels encrypted'
      : `plain http, allowed only because ${url.hostname} is loopback`;
  return check('base-url', { status: 'pass', detail: `origin ${url.origin}, path ${url.pathname}; ${rule}` });
}

export function checkProxy(choice: ProxyChoice | undefined): Check {
  if (choice === undefined) return skipped('proxy', NO_BASE_URL);
  return check('proxy', { status: 'pass', detail: choice.reason });
}
