/** Failures the probes report themselves, beside the Node errors (with their `code`) they pass on. */

/** A step that did not finish within its own time limit. */
export class ProbeTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The proxy answered CONNECT with something other than 2xx (407: it wants credentials). */
export class TunnelRefusedError extends Error {
  readonly code = 'PROXY_REFUSED';
  constructor(
    readonly status: number,
    readonly statusLine: string,
  ) {
    super(`the proxy answered CONNECT with "${statusLine}"`);
  }
}
