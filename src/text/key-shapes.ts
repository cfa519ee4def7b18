/**
 * What could be a key, judged by form rather than by alphabet: a key pasted into the wrong setting
 * is one long token, whatever characters it holds (letters only, digits, `"`, `\`, `.`, `/`). Every
 * test here is one pass over the text: values come from outside and may be a megabyte long. Pure.
 */

import { isIP } from 'node:net';

/** A token this long with no space in it may be a key. Shorter ones are words, numbers, names. */
export const KEY_LIKE_LENGTH = 20;

/**
 * Well-known key prefixes (ours, `mfsk_`, and the common ones of other services), where a word
 * begins. Linear: after a prefix the run is taken greedily and never re-tried from inside it.
 */
export const PREFIXED_SECRET =
  /\b(?:mfsk|sk|pk|rk|ghp|gho|ghs|ghu|github_pat|glpat|xox[abprs])[-_][A-Za-z0-9_-]{6,}/g;

/** Tokens with a known key prefix: for values, like paths, where a long token is ordinary. */
export function prefixedSecrets(text: string): string[] {
  return text.match(PREFIXED_SECRET) ?? [];
}

/** One long token with no space in it: a key, for all we can tell. */
export function isKeyLike(token: string): boolean {
  return token.length >= KEY_LIKE_LENGTH && !/\s/.test(token);
}

/**
 * A host name that may be a key: one with a key's prefix, or one long label with no dot (a key
 * pasted where the proxy belongs is read as such a host). A host with dots is a name, however
 * random it looks (`app-abc123xyz456-uc.a.run.app`), and doctor must be able to show it.
 */
export function isKeyLikeHost(hostname: string): boolean {
  if (hostname.search(PREFIXED_SECRET) !== -1) return true;
  return (
    isKeyLike(hostname) && !hostname.includes('.') && !hostname.includes(':') && !hostname.startsWith('[')
  );
}

/** A host name as DNS spells one (dotted labels, a top-level name of letters), or an IP address. */
export function isHostName(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return true;
  return host.length <= 253 && /^(?:[a-z0-9-]{1,63}\.)+[a-z]{2,63}$/.test(host);
}

/**
 * A path without its trailing slashes. A loop, not `/\/+$/`: that pattern is tried again from every
 * slash of a long run of them, quadratic in the run's length.
 */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/** A path without its leading and trailing slashes, in one pass (see `withoutTrailingSlashes`). */
export function withoutOuterSlashes(path: string): string {
  let start = 0;
  while (start < path.length && path[start] === '/') start++;
  return withoutTrailingSlashes(path.slice(start));
}

/** Characters an ordinary URL path is made of; anything else (`"`, `\`, `%`) is a sign of a pasted key. */
const PLAIN_PATH = /^[A-Za-z0-9._~/-]*$/;

/**
 * A URL path that may be a key as a whole: a long one holding characters a path made by hand does
 * not (a key with `"` or `\` is split by the URL parser into short segments, `\` read as `/`, and
 * each segment would show a slice of it). Without its outer slashes, or undefined.
 */
export function keyLikeWholePath(path: string): string | undefined {
  const whole = withoutOuterSlashes(path);
  return isKeyLike(whole) && !PLAIN_PATH.test(whole) ? whole : undefined;
}

/** The parts of a URL path that may be a key: each long segment, and the whole by `keyLikeWholePath`. */
export function keyLikePathParts(path: string): string[] {
  const whole = keyLikeWholePath(path);
  return [...(whole === undefined ? [] : [whole]), ...path.split('/').filter(isKeyLike)];
}

/** The long pieces of a query or fragment (`?token=<key>`): any of them may be the key. */
export function keyLikeQueryParts(text: string): string[] {
  return text.split(/[?#&=;]/).filter(isKeyLike);
}
