/** Connection failures: their codes in words, and those that retrying cannot fix. */

const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function isCertificateFailure(code: string): boolean {
  return CERTIFICATE_CODES.has(code);
}

/** A tunnel the proxy refused for want of credentials: its 407 is in the message (tunnel.ts). */
export function isProxyAuthFailure(detail: string): boolean {
  return /\b407\b|proxy auth/i.test(detail);
}

/**
 * The service's HTTP itself is malformed: the parser refused it (llhttp's HPE_ codes, from node:http
 * and undici alike), the headers overflowed, or the body disagreed with its Content-Length. The
 * connection worked, so this is not "could not reach", and sending the same request again would
 * only get the same answer.
 */
const PROTOCOL_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

export function isProtocolFailure(code: string): boolean {
  return code.startsWith('HPE_') || PROTOCOL_CODES.has(code);
}

export function isPermanentFailure(code: string, detail: string): boolean {
  return isCertificateFailure(code) || isProxyAuthFailure(detail);
}

/** Node and undici error codes, in words. */
const NETWORK_CODE_WORDS: Record<string, string> = {
  ENOTFOUND: 'DNS lookup failed: the host name does not resolve',
  EAI_AGAIN: 'DNS lookup failed temporarily',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  UND_ERR_ABORTED: 'request aborted (a proxy may have refused the tunnel)',
  UND_ERR_PRX_TLS: 'TLS to the proxy failed',
};

/** Node's or undici's error code in words, for messages; undefined for a code not listed. */
export function networkCodeWords(code: string): string | undefined {
  return NETWORK_CODE_WORDS[code];
}
