import { describe, expect, it } from 'vitest';
import { derivePricePoints, type Price, parsePriceText } from '../../src/sandbox/prices.js';

const price = (inputPrice: number, outputPrice: number): Price => ({ inputPrice, outputPrice });

describe('parsePriceText', () => {
  it('reads the form used by the data set', () => {
    expect(parsePriceText('in $0.14 / out $0.28 per 1M tokens')).toEqual(price(0.14, 0.28));
    expect(parsePriceText('in $0 / out $0 per 1M tokens')).toEqual(price(0, 0));
    expect(parsePriceText('in $0.2288 / out $0.9144 per 1M tokens')).toEqual(price(0.2288, 0.9144));
  });

  it('accepts other labellings, spacing, case and thousands separators', () => {
    expect(parsePriceText('input: 0.14, output: 0.28')).toEqual(price(0.14, 0.28));
    expect(parsePriceText('IN US$ 1,200.5 / OUT US$2,400')).toEqual(price(1200.5, 2400));
    expect(parsePriceText('out $2 / in $1')).toEqual(price(1, 2));
    expect(parsePriceText('price increase: in $.5 / out $1.')).toEqual(price(0.5, 1));
  });

  it('reads two unlabelled dollar amounts as input then output', () => {
    expect(parsePriceText('listed at $0.8 / $4 per 1M')).toEqual(price(0.8, 4));
  });

  it('returns null when both prices are not stated', () => {
    expect(parsePriceText(null)).toBeNull();
    expect(parsePriceText('200000')).toBeNull();
    expect(parsePriceText('in $0.14 per 1M tokens')).toBeNull();
    expect(parsePriceText('free variant removed')).toBeNull();
    expect(parsePriceText('$1 / $2 / $3')).toBeNull();
  });
});

describe('derivePricePoints', () => {
  it('gives one point at the start when nothing is known', () => {
    expect(derivePricePoints(100, [])).toEqual([{ inputPrice: null, outputPrice: null, observedAt: 100 }]);
  });

  it('takes the price at the start from the newest observation at or before it', () => {
    const points = derivePricePoints(100, [
      { at: 50, before: null, after: price(1, 2) },
      { at: 100, before: price(1, 2), after: price(3, 4) },
    ]);
    expect(points).toEqual([{ ...price(3, 4), observedAt: 100 }]);
  });

  it('otherwise from what the first later observation says held before it', () => {
    const points = derivePricePoints(100, [
      { at: 300, before: null, after: price(3, 4) },
      { at: 200, before: price(1, 2), after: price(3, 4) },
    ]);
    expect(points).toEqual([
      { ...price(1, 2), observedAt: 100 },
      { ...price(3, 4), observedAt: 200 },
    ]);
  });

  it('adds a point only where the price changes', () => {
    const points = derivePricePoints(0, [
      { at: 10, before: null, after: price(1, 2) },
      { at: 20, before: null, after: price(1, 2) },
      { at: 30, before: price(1, 2), after: price(1, 3) },
      { at: 40, before: null, after: price(1, 3) },
    ]);
    expect(points).toEqual([
      { ...price(1, 2), observedAt: 0 },
      { ...price(1, 3), observedAt: 30 },
    ]);
  });

  it('invents no point for a before value that contradicts the running price', () => {
    const points = derivePricePoints(0, [
      { at: 10, before: null, after: price(1, 2) },
      { at: 50, before: price(9, 9), after: price(5, 6) },
    ]);
    expect(points).toEqual([
      { ...price(1, 2), observedAt: 0 },
      { ...price(5, 6), observedAt: 50 },
    ]);
  });

  it('keeps one point per second: the later record of that second wins', () => {
    const back = derivePricePoints(0, [
      { at: 5, before: null, after: price(1, 1) },
      { at: 10, before: null, after: price(2, 2) },
      { at: 10, before: null, after: price(1, 1) },
    ]);
    expect(back).toEqual([{ ...price(1, 1), observedAt: 0 }]);
    const changed = derivePricePoints(0, [
      { at: 5, before: null, after: price(1, 1) },
      { at: 10, before: null, after: price(2, 2) },
      { at: 10, before: null, after: price(3, 3) },
    ]);
    expect(changed).toEqual([
      { ...price(1, 1), observedAt: 0 },
      { ...price(3, 3), observedAt: 10 },
    ]);
  });
});
