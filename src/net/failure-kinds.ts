/** Kinds of connection failure that retrying cannot fix: a retry would only delay the message. */

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

/** undici reports a tunnel the proxy refused for want of credentials only in its message. */
export function isProxyAuthFailure(detail: string): boolean {
  return /\b407\b|proxy auth/i.test(detail);
}

export function isPermanentFailure(code: string, detail: string): boolean {
  return isCertificateFailure(code) || isProxyAuthFailure(detail);
}
