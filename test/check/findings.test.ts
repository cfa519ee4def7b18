import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChangeEvent, Model, PriceHistory } from '../../src/api/schemas.js';
import { findingsFor, priceAt } from '../../src/check/findings.js';

const model = (
  id: string,
  displayName: string,
  input: number,
  output: number,
  contextLength: number,
): Model =>
  ({
    id,
    name: id.split('/')[1],
    displayName,
    pricing: { inputPerMillion: input, outputPerMillion: output },
    contextLength,
  }) as Model;

const CATALOG = [
  model('quillon/quill-mini-2', 'Quill Mini 2', 1, 4, 128_000),
  model('quillon/quill-mini-3', 'Quill Mini 3', 0.8, 3, 200_000),
  model('quillon/quill-nano', 'Quill Nano', 0.1, 0.4, 32_000),
  model('acme/bolt', 'Bolt', 0.5, 2, 128_000),
  model('acme/bolt-old', 'Bolt Old', 0.2, 1, 256_000),
];

const notice = (id: string, name: string, title: string, at: string): ChangeEvent =>
  ({
    id,
    eventType: 'deprecation',
    title,
    summary: null,
    detectedAt: at,
    publishedAt: at,
    sourceUrl: `https://example.com/${id}`,
    model: { slug: 'quillon', name },
  }) as ChangeEvent;

const DAY = 86_400;
const SINCE = Date.parse('2026-10-01T00:00:00Z') / 1000;
const history = (points: [number, number, number][]): PriceHistory =>
  ({
    id: 'x',
    points: points.map(([observedAt, inputPrice, outputPrice]) => ({ observedAt, inputPrice, outputPrice })),
  }) as PriceHistory;

describe('findings', () => {
  const findings = findingsFor({
    catalog: CATALOG,
    deprecations: [
      notice(
        'n1',
        'Quill Mini 2',
        'Quill Mini 2 retires on 2027-01-31; move to quillon/quill-mini-3',
        '2026-09-01T00:00:00Z',
      ),
      notice('n2', 'Bolt Old', 'Bolt Old is deprecated', '2026-08-01T00:00:00Z'),
      notice('n3', 'quill-mini-2', 'Quill Mini 2: final notice', '2026-11-01T00:00:00Z'),
    ],
    histories: new Map([
      [
        'quillon/quill-mini-2',
        history([
          [SINCE - 10 * DAY, 0.8, 4],
          [SINCE + 5 * DAY, 1, 4],
        ]),
      ],
      ['acme/bolt', history([[SINCE + 3 * DAY, 0.4, 2.5]])],
      ['quillon/quill-nano', history([[SINCE - DAY, 0.1, 0.4]])],
    ]),
    since: SINCE,
  });

  it('a deprecated model gets its newest notice; the replacement it names is not deprecated', () => {
    expect(findings('quillon/quill-mini-2').filter((f) => f.kind === 'deprecated')).toEqual([
      {
        kind: 'deprecated',
        date: '2026-11-01',
        title: 'Quill Mini 2: final notice',
        source: 'https://example.com/n3',
        changeId: 'n3',
      },
    ]);
    expect(findings('quillon/quill-mini-3').some((f) => f.kind === 'deprecated')).toBe(false);
  });

  it('a price increase compares the price in effect at the date with today, both sides given', () => {
    expect(findings('quillon/quill-mini-2').filter((f) => f.kind === 'price_increase')).toEqual([
      {
        kind: 'price_increase',
        since: '2026-10-01',
        before: { input: 0.8, output: 4 },
        after: { input: 1, output: 4 },
      },
    ]);
    // A history that starts later: its first point is the price then.
    expect(findings('acme/bolt').filter((f) => f.kind === 'price_increase')).toEqual([
      {
        kind: 'price_increase',
        since: '2026-10-01',
        before: { input: 0.4, output: 2.5 },
        after: { input: 0.5, output: 2 },
      },
    ]);
    expect(findings('quillon/quill-nano').some((f) => f.kind === 'price_increase')).toBe(false);
    // No history: not price-checked, nothing said.
    expect(findings('quillon/quill-mini-3').some((f) => f.kind === 'price_increase')).toBe(false);
  });

  it('a cheaper model has at least the context and the lowest input price, and is not deprecated', () => {
    // acme/bolt-old (0.2, 256k) is cheaper still, but deprecated.
    expect(findings('quillon/quill-mini-2').filter((f) => f.kind === 'cheaper')).toEqual([
      { kind: 'cheaper', modelId: 'acme/bolt', inputPrice: 0.5, contextLength: 128_000 },
    ]);
    expect(findings('quillon/quill-nano').filter((f) => f.kind === 'cheaper')).toEqual([]);
    expect(findings('unknown/model')).toEqual([]);
  });

  it('the cheaper model is the one a pass over the catalog finds, ties and repeated ids included', () => {
    type Entry = [id: string, price: number, context: number];
    // The rule as first written: every other model, one by one; the first in the catalog on a tie.
    const byPass = (entries: Entry[], modelId: string) => {
      const [, price, context] = entries.findLast(([id]) => id === modelId)!;
      let best: Entry | undefined;
      for (const other of entries) {
        if (other[0] === modelId || other[2] < context || other[1] >= price) continue;
        if (!best || other[1] < best[1] || (other[1] === best[1] && other[2] > best[2])) best = other;
      }
      return best ? [{ kind: 'cheaper', modelId: best[0], inputPrice: best[1], contextLength: best[2] }] : [];
    };
    // Few ids, prices and contexts: ties and repeated ids come often.
    const entriesArb = fc.array(
      fc.tuple(
        fc.constantFrom('a/x', 'a/y', 'b/x', 'b/z'),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(entriesArb, (entries) => {
        const catalog = entries.map(([id, price, context]) => model(id, id, price, 1, context));
        const find = findingsFor({ catalog, deprecations: [], histories: new Map(), since: SINCE });
        for (const [id] of entries) expect(find(id)).toEqual(byPass(entries, id));
      }),
    );
  });

  it('priceAt: the last point at or before the date, else the first', () => {
    const h = history([
      [300, 3, 3],
      [100, 1, 1],
      [200, 2, 2],
    ]);
    expect(priceAt(h, 250)).toEqual({ input: 2, output: 2 });
    expect(priceAt(h, 50)).toEqual({ input: 1, output: 1 });
    expect(priceAt(history([]), 50)).toBeUndefined();
  });
});
