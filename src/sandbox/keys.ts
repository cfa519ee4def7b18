import { createHash } from 'node:crypto';

export type Tier = 'free' | 'pro';

/** Why a request was refused: no Authorization header, not a bearer header, or a wrong or revoked key. */
export type AuthFailure = 'missing' | 'malformed' | 'unknown';

export type Authentication =
  | { ok: true; key: string; keyHash: string; tier: Tier }
  | { ok: false; reason: AuthFailure };

// Visible ASCII without spaces: anything else cannot travel in a `Bearer <key>` header intact.
const KEY_FORMAT = /^[\x21-\x7e]+$/;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * API keys by SHA-256 hash, as the service keeps them (service.md: "stores only its hash"): the
 * plain key exists only in the call that adds, revokes or presents it.
 */
export class KeyStore {
  private readonly byHash = new Map<string, { tier: Tier; revoked: boolean }>();

  /** Accepts `key` with `tier`; adding a key again sets its tier and lifts a revocation. */
  add(key: string, tier: Tier): void {
    if (!KEY_FORMAT.test(key)) throw new Error('an API key must be printable ASCII without spaces');
    this.byHash.set(hashKey(key), { tier, revoked: false });
  }

  revoke(key: string): void {
    const record = this.byHash.get(hashKey(key));
    if (record !== undefined) record.revoked = true;
  }

  /** Checks an Authorization header value; the key it returns is the caller's, for this request only. */
  authenticate(authorization: string | undefined): Authentication {
    if (authorization === undefined || authorization.trim() === '') return { ok: false, reason: 'missing' };
    const key = BEARER.exec(authorization.trim())?.[1];
    if (key === undefined) return { ok: false, reason: 'malformed' };
    const keyHash = hashKey(key);
    const record = this.byHash.get(keyHash);
    if (record === undefined || record.revoked) return { ok: false, reason: 'unknown' };
    return { ok: true, key, keyHash, tier: record.tier };
  }
}
