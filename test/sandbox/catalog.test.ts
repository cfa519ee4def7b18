import { describe, expect, it } from 'vitest';
import type { Model } from '../../src/sandbox/types.js';
import { filterCatalog } from '../../src/service-rules/catalog-filter.js';

function model(id: string, inputPerMillion: number | null, contextLength: number | null): Model {
  return {
    id,
    name: id,
    displayName: id,
    vendor: id.split('/')[0] ?? '',
    type: 'commercial',
    pricing: { inputPerMillion, outputPerMillion: null },
    contextLength,
    listedAt: null,
    huggingfaceId: null,
    attention: { rank: 1, score: 0, newsCount: 0, opinions: 0 },
    url: `https://openrouter.ai/${id}`,
  };
}

const catalog = [
  model('acme/cheap', 0.1, 8000),
  model('acme/unpriced', null, null),
  model('other/dear', 5, 200000),
];
const ids = (models: Model[]) => models.map((entry) => entry.id);

describe('filterCatalog', () => {
  it('keeps everything, in order, without conditions', () => {
    expect(ids(filterCatalog(catalog, {}))).toEqual(['acme/cheap', 'acme/unpriced', 'other/dear']);
  });

  it('matches the vendor namespace case-insensitively', () => {
    expect(ids(filterCatalog(catalog, { vendor: 'ACME' }))).toEqual(['acme/cheap', 'acme/unpriced']);
  });

  it('lets no model without an input price or context length pass those bounds', () => {
    expect(ids(filterCatalog(catalog, { maxInputPrice: 100 }))).toEqual(['acme/cheap', 'other/dear']);
    expect(ids(filterCatalog(catalog, { maxInputPrice: 0.1 }))).toEqual(['acme/cheap']);
    expect(ids(filterCatalog(catalog, { minContext: 0 }))).toEqual(['acme/cheap', 'other/dear']);
    expect(ids(filterCatalog(catalog, { minContext: 8001 }))).toEqual(['other/dear']);
  });
});
