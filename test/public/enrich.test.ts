import { describe, expect, it } from 'vitest';
import { catalogFacts } from '../../src/public/enrich.js';
import { parseHuggingFaceListings } from '../../src/public/huggingface.js';
import { parseModelsDev } from '../../src/public/models-dev.js';
import { snapshot } from './catalog-fixtures.js';
import { listing, modelsDevAnswer } from './origin-fixtures.js';

const catalog = snapshot(0, [
  { id: 'qwen/qwen3.8-27b', hf: 'Qwen/Qwen3.8-27B' },
  { id: 'z-ai/glm-4.5', hf: 'zai-org/GLM-4.5' },
  { id: 'anthropic/claude-sonnet-4' },
  { id: '~anthropic/claude-sonnet-latest', aliasTarget: 'anthropic/claude-sonnet-4' },
  { id: 'stealth/ox-alpha' },
]);

const modelsDev = (() => {
  const parsed = parseModelsDev(
    modelsDevAnswer({
      openrouter: [
        { id: 'anthropic/claude-sonnet-4', release: '2025-05-22', open: false },
        { id: 'z-ai/glm-4.5', release: '2025-07-28', open: true },
      ],
    }),
  );
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.index;
})();

const huggingFace = parseHuggingFaceListings([
  listing('Qwen', [{ id: 'Qwen/Qwen3.8-27B', createdDaysAgo: 3, downloads: 120_000, likes: 950 }], 'popular'),
]);

describe('catalogFacts', () => {
  it('says open_source for a linked repository or open weights, commercial only when models.dev says so', () => {
    const facts = catalogFacts(catalog, { modelsDev, huggingFace });
    expect(facts.get('qwen/qwen3.8-27b')).toEqual({
      type: 'open_source',
      releaseDate: null,
      popularity: { downloads: 120_000, likes: 950 },
    });
    expect(facts.get('z-ai/glm-4.5')).toEqual({
      type: 'open_source',
      releaseDate: '2025-07-28',
      popularity: null,
    });
    expect(facts.get('anthropic/claude-sonnet-4')).toEqual({
      type: 'commercial',
      releaseDate: '2025-05-22',
      popularity: null,
    });
    expect(facts.get('~anthropic/claude-sonnet-latest')).toEqual(facts.get('anthropic/claude-sonnet-4'));
  });

  it('leaves null what no origin gives', () => {
    expect(catalogFacts(catalog, {}).get('stealth/ox-alpha')).toEqual({
      type: null,
      releaseDate: null,
      popularity: null,
    });
    expect(catalogFacts(catalog, {}).get('anthropic/claude-sonnet-4')?.type).toBeNull();
  });
});
