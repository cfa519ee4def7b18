/** The endpoint's one key, presented as `Authorization: Bearer <key>`. */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeCrypto } from '../lazy-node.js';
import { turnAway } from './replies.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const digest = (text: string): Buffer => nodeCrypto().createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether a request presents `key`; if not, it is answered 401 (the connection ending with it).
 * `keyHint` says where the key comes from, e.g. "the value of MODEL_FEED_API_KEY".
 */
export function bearerCheck(
  key: string,
  keyHint: string,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Compared as SHA-256 digests: equal lengths, so timingSafeEqual applies and the time taken
  // says nothing about how much of a guess was right.
  const keyDigest = digest(key);
  return (req, res) => {
    const header = req.headers.authorization?.trim();
    const challenge = { 'www-authenticate': 'Bearer' };
    if (!header) {
      turnAway(
        res,
        401,
        `Missing Authorization header: send "Authorization: Bearer <key>" with ${keyHint}.`,
        challenge,
      );
      return false;
    }
    const presented = BEARER.exec(header)?.[1];
    if (presented === undefined) {
      turnAway(
        res,
        401,
        `Malformed Authorization header: expected "Bearer <key>" with ${keyHint}.`,
        challenge,
      );
      return false;
    }
    if (!nodeCrypto().timingSafeEqual(digest(presented), keyDigest)) {
      turnAway(res, 401, `Key not accepted: send "Authorization: Bearer <key>" with ${keyHint}.`, challenge);
      return false;
    }
    return true;
  };
}
