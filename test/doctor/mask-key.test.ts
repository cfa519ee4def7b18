import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/doctor/mask-key.js';

// Characters that never occur in the mask's own text, so any of them in the output came from the key.
const KEY_ALPHABET = 'αβγδεζηθικλμνξοπρστυφχψω';

function keyOfLength(length: number, offset: number): string {
  return Array.from({ length }, (_, i) => KEY_ALPHABET[(i * 7 + offset) % KEY_ALPHABET.length]).join('');
}

describe('maskKey', () => {
  it('never reveals more than 8 characters of the key, whatever its length', () => {
    for (let length = 1; length <= 80; length++) {
      const key = keyOfLength(length, length);
      const revealed = [...maskKey(key)].filter((c) => KEY_ALPHABET.includes(c)).length;
      expect(revealed, `key of ${length}`).toBeLessThanOrEqual(8);
      expect(revealed, `key of ${length}`).toBeLessThanOrEqual(Math.floor(length / 2));
    }
  });

  it('shows the ends of a long key and a fingerprint that tells keys apart', () => {
    const key = 'mfsk_live_0123456789abcdefXYZW';
    expect(maskKey(key)).toMatch(/^mfsk…XYZW \(30 chars, sha256 [0-9a-f]{8}\)$/);
    expect(maskKey(key)).not.toContain(key);
    expect(maskKey(`${key}x`)).not.toBe(maskKey(key));
  });

  it('shows nothing of a short key but its length and fingerprint', () => {
    expect(maskKey('short-key')).toMatch(/^… \(9 chars, sha256 [0-9a-f]{8}\)$/);
  });
});
