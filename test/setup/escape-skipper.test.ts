/** The hidden key prompt's escape-sequence skipper (src/setup/prompt.ts): pure. */

import { describe, expect, it } from 'vitest';
import { escapeSkipper } from '../../src/setup/prompt.js';

/** The characters of `typed` the skipper lets through. */
function kept(typed: string): string {
  const skipper = escapeSkipper();
  return [...typed].filter((ch) => !skipper.skips(ch)).join('');
}

describe('the hidden prompt drops what a terminal sends for keys and pastes', () => {
  it('arrow keys, SS3 keys and bracketed paste leave only the text', () => {
    expect(kept('ab\x1b[Ccd\x1bOD')).toBe('abcd');
    expect(kept('\x1b[200~mfsk_key\x1b[201~')).toBe('mfsk_key');
  });

  it('says when a key other than a paste marker ended, once', () => {
    const skipper = escapeSkipper();
    const ended = (typed: string): number =>
      [...typed].filter((ch) => {
        skipper.skips(ch);
        return skipper.endedSpecialKey();
      }).length;
    expect(ended('\x1b[200~mfsk_key\x1b[201~')).toBe(0);
    expect(ended('ab\x1b[Ccd')).toBe(1);
    expect(ended('\x1bOD')).toBe(1);
    expect(ended('key\x1b\r')).toBe(1);
    expect(ended('\x1b[1;5D\x1b[C')).toBe(2);
  });

  it('Enter or Ctrl-C right after a lone Escape still ends the answer: a control character ends a sequence', () => {
    expect(kept('key\x1b\r')).toBe('key\r');
    expect(kept('key\x1b\x03')).toBe('key\x03');
    expect(kept('key\x1bO\r')).toBe('key\r');
    expect(kept('key\x1b[1;\n')).toBe('key\n');
  });
});
