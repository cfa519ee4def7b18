/**
 * How doctor names the API key: enough to tell two keys apart and to match the account screen,
 * never enough to use it. At most its first and last 4 characters are shown, and only for a key of
 * 16 or more (so at least half stays hidden), plus a short SHA-256 fingerprint to compare keys by.
 */

import { nodeCrypto } from '../lazy-node.js';

const SHOWN_AT_EACH_END = 4;
const MIN_LENGTH_TO_SHOW_ENDS = 16;

export function maskKey(key: string): string {
  const fingerprint = nodeCrypto().createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 8);
  const ends =
    key.length >= MIN_LENGTH_TO_SHOW_ENDS
      ? `${key.slice(0, SHOWN_AT_EACH_END)}…${key.slice(-SHOWN_AT_EACH_END)}`
      : '…';
  return `${ends} (${key.length} chars, sha256 ${fingerprint})`;
}
