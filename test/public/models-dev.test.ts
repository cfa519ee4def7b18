import { describe, expect, it } from 'vitest';
import {
  MAX_MODELS_PER_PROVIDER,
  MAX_PROVIDERS,
  type ModelsDevIndex,
  modelsDevFacts,
  parseModelsDev,
} from '../../src/public/models-dev.js';
import { snapshot } from './catalog-fixtures.js';
import { modelsDevAnswer } from './origin-fixtures.js';

function parsed(body: unknown): ModelsDevIndex {
  const result = parseModelsDev(body);
  if (!result.ok) throw new Error(result.reason);
  return result.index;
}

// Release dates and open weights as models.dev gave them on 2026-06-13 (see origin-fixtures.ts).
const answer = modelsDevAnswer({
  anthropic: [
    { id: 'claude-sonnet-4-0', release: '2025-05-22' },
    { id: 'claude-sonnet-4-20250514', release: '2025-05-22' },
    { id: 'claude-haiku-4-5', release: '2025-10-15' },
    { id: 'claude-3-5-sonnet-20240620', release: '2024-06-20' },
    { id: 'claude-3-5-sonnet-20241022', release: '2024-10-22' },
  ],
  zai: [{ id: 'glm-4.5', release: '2025-07-28', open: true }],
  openrouter: [
    { id: 'anthropic/claude-sonnet-4', release: '2025-05-22', open: false },
    { id: 'qwen/qwen3-8b', release: '2025-04-28', open: true },
  ],
});

const catalog = snapshot(0, [
  { id: 'anthropic/claude-sonnet-4' },
  { id: 'anthropic/claude-haiku-4.5' },
  { id: 'anthropic/claude-3.5-sonnet' },
  { id: 'z-ai/glm-4.5' },
  { id: 'qwen/qwen3-8b' },
  { id: 'qwen/qwen3-8b:free' },
  { id: 'tencent/hy-mt2-30b-a3b' },
]);

describe('modelsDevFacts', () => {
  const facts = modelsDevFacts(parsed(answer), catalog);

  it("takes the aggregator's own entry first and adds the vendor's ids that only add a snapshot tail", () => {
    expect(facts.get('anthropic/claude-sonnet-4')).toEqual({
      releaseDate: '2025-05-22',
      openWeights: false,
      vendorIds: ['claude-sonnet-4-0', 'claude-sonnet-4-20250514'],
    });
  });

  it("matches a vendor's id that writes the version with dashes, and a provider spelled otherwise", () => {
    expect(facts.get('anthropic/claude-haiku-4.5')).toEqual({
      releaseDate: '2025-10-15',
      openWeights: false,
      vendorIds: ['claude-haiku-4-5'],
    });
    expect(facts.get('z-ai/glm-4.5')).toEqual({
      releaseDate: '2025-07-28',
      openWeights: true,
      vendorIds: ['glm-4.5'],
    });
  });

  it('gives nothing for two dated snapshots released apart: a wrong date is worse than none', () => {
    expect(facts.has('anthropic/claude-3.5-sonnet')).toBe(false);
  });

  it("gives a variant its base's facts, and nothing for a model models.dev does not list", () => {
    expect(facts.get('qwen/qwen3-8b:free')).toEqual({
      releaseDate: '2025-04-28',
      openWeights: true,
      vendorIds: [],
    });
    expect(facts.has('tencent/hy-mt2-30b-a3b')).toBe(false);
  });
});

describe('parseModelsDev on hostile answers', () => {
  it('refuses an answer that is not an object of providers', () => {
    expect(parseModelsDev([1, 2]).ok).toBe(false);
    expect(parseModelsDev('api.json').ok).toBe(false);
    expect(parseModelsDev(null).ok).toBe(false);
  });

  it('skips a provider without a models object and reads a field of the wrong type as null', () => {
    const index = parsed({
      broken: { id: 'broken', models: [1, 2, 3] },
      vendor: {
        models: {
          good: { release_date: '2025-13-40', open_weights: 'yes' },
          nested: { release_date: '2025-02', deep: JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`) },
          [`x${'y'.repeat(500)}`]: { release_date: '2025-01-01' },
        },
      },
    });
    expect(index.skipped).toBe(2);
    expect([...(index.providers.get('vendor') ?? [])]).toEqual([
      ['good', { releaseDate: null, openWeights: null }],
      ['nested', { releaseDate: '2025-02', openWeights: null }],
    ]);
  });

  it('bounds providers and models per provider', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_MODELS_PER_PROVIDER + 5 }, (_, i) => [
        `m${i}`,
        { release_date: '2025-01-01' },
      ]),
    );
    const providers = Object.fromEntries(
      Array.from({ length: MAX_PROVIDERS + 3 }, (_, i) => [`p${i}`, { models: i === 0 ? many : {} }]),
    );
    const index = parsed(providers);
    expect(index.providers.size).toBe(MAX_PROVIDERS);
    expect(index.providers.get('p0')?.size).toBe(MAX_MODELS_PER_PROVIDER);
    expect(index.skipped).toBe(8);
  });
});
