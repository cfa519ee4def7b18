import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedEditDistance, editDistance } from '../../src/text/edit-distance.js';
import { plainLevenshtein } from '../support/levenshtein.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('gtp-4o', 'gpt-4o')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('measures the same distance as the textbook table, long texts and any characters included', () => {
    const text = fc.string({ unit: fc.constantFrom(...'ab-é😀'), maxLength: 300 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(editDistance(a, b)).toBe(plainLevenshtein(a, b));
      }),
      { numRuns: 200 },
    );
  });
});

describe('boundedEditDistance', () => {
  it('measures the same distance as the textbook table, or says it is over the limit', () => {
    const text = fc.string({ unit: fc.constantFrom(...'abc'), maxLength: 15 });
    fc.assert(
      fc.property(text, text, fc.nat(16), (a, b, limit) => {
        const full = plainLevenshtein(a, b);
        const bounded = boundedEditDistance(a, b, limit, { cells: 0 });
        expect(bounded).toBe(full <= limit ? full : limit + 1);
      }),
      { numRuns: 1000 },
    );
  });

  it('a short pair after a long one reads nothing the long one left in the reused rows', () => {
    expect(boundedEditDistance('x'.repeat(400), 'x'.repeat(399), 2)).toBe(1);
    expect(boundedEditDistance('ab', 'ba', 2)).toBe(2);
    expect(boundedEditDistance('ab', 'ba', 1)).toBe(2);
  });

  it('computes only the diagonal band, and stops at the first row wholly over the limit', () => {
    const near = { cells: 0 };
    expect(boundedEditDistance('a'.repeat(100), 'a'.repeat(100), 2, near)).toBe(0);
    // Five cells a row at most (|i − j| <= 2), never the 10,000 of the whole table.
    expect(near.cells).toBeLessThanOrEqual(5 * 100);

    const far = { cells: 0 };
    expect(boundedEditDistance('a'.repeat(100), 'b'.repeat(100), 2, far)).toBe(3);
    // Row 3 is the first whose every cell is over 2.
    expect(far.cells).toBeLessThanOrEqual(5 * 3);

    const lengths = { cells: 0 };
    expect(boundedEditDistance('a', 'a'.repeat(100), 2, lengths)).toBe(3);
    expect(lengths.cells).toBe(0);
  });
});
