import { describe, expect, it } from 'vitest';
import {
  MAX_ORGS,
  orgOf,
  parseHuggingFaceListings,
  planHuggingFaceRequests,
  uploadKey,
} from '../../src/public/huggingface.js';
import { DAY, snapshot, T0 } from './catalog-fixtures.js';
import { listing, repo } from './origin-fixtures.js';

describe('planHuggingFaceRequests', () => {
  it('asks for the newest and the most downloaded repositories of each linked organisation, most-linked first', () => {
    const catalog = snapshot(0, [
      { id: 'qwen/qwen3.8-27b', hf: 'Qwen/Qwen3.8-27B' },
      { id: 'qwen/qwen3-8b', hf: 'Qwen/Qwen3-8B' },
      { id: 'qwen/qwen3-8b:free', hf: 'Qwen/Qwen3-8B' },
      { id: 'tencent/hy-mt2-30b-a3b', hf: 'tencent/Hy-MT2-30B-A3B' },
      { id: 'openai/o3', hf: null },
      { id: 'evil/model', hf: 'evil org/../x' },
    ]);
    expect(planHuggingFaceRequests(catalog)).toEqual([
      { org: 'Qwen', lane: 'newest', path: '/api/models?author=Qwen&sort=createdAt&direction=-1&limit=50' },
      { org: 'Qwen', lane: 'popular', path: '/api/models?author=Qwen&sort=downloads&direction=-1&limit=100' },
      {
        org: 'tencent',
        lane: 'newest',
        path: '/api/models?author=tencent&sort=createdAt&direction=-1&limit=50',
      },
      {
        org: 'tencent',
        lane: 'popular',
        path: '/api/models?author=tencent&sort=downloads&direction=-1&limit=100',
      },
    ]);
  });

  it(`follows at most ${MAX_ORGS} organisations, one spelling each`, () => {
    const catalog = snapshot(
      0,
      Array.from({ length: 30 }, (_, i) => ({
        id: `v${i}/m`,
        hf: `${i % 2 === 0 ? 'Org' : 'org'}${i >> 1}/M`,
      })),
    );
    const orgs = planHuggingFaceRequests(catalog).map((request) => request.org);
    expect(new Set(orgs).size).toBe(15);
    expect(
      planHuggingFaceRequests(
        snapshot(
          0,
          Array.from({ length: 30 }, (_, i) => ({ id: `v${i}/m`, hf: `o${i}/M` })),
        ),
      ),
    ).toHaveLength(2 * MAX_ORGS);
  });
});

describe('uploadKey: re-uploads and quantisations collapse onto one base', () => {
  const listings = parseHuggingFaceListings([
    listing('Qwen', [
      { id: 'Qwen/Qwen3.8-27B', createdDaysAgo: 3 },
      { id: 'Qwen/Qwen3.8-27B-Base', createdDaysAgo: 3 },
      { id: 'Qwen/Qwen3.8-27B-FP8', createdDaysAgo: 2, quantizes: 'Qwen/Qwen3.8-27B' },
      { id: 'Qwen/Qwen3.8-27B-Instruct-GGUF', createdDaysAgo: 1 },
      { id: 'Qwen/Qwen3.8-27B-Thinking-2608', createdDaysAgo: 1 },
      { id: 'Qwen/Q-AWQ', createdDaysAgo: 1, quantizes: 'Qwen/Qwen3.8-27B-Thinking-2608' },
    ]),
  ]);
  const key = (id: string) => uploadKey(id, listings.repos);

  it('gives siblings that differ only by packaging or tuning words one key', () => {
    expect(key('Qwen/Qwen3.8-27B')).toBe('qwen/qwen3.8-27b');
    expect(key('Qwen/Qwen3.8-27B-Base')).toBe('qwen/qwen3.8-27b');
    expect(key('Qwen/Qwen3.8-27B-FP8')).toBe('qwen/qwen3.8-27b');
    expect(key('Qwen/Qwen3.8-27B-Instruct-GGUF')).toBe('qwen/qwen3.8-27b');
  });

  it('follows a quantisation tag to its base, and keeps another release of the family apart', () => {
    expect(key('Qwen/Qwen3.8-27B-Thinking-2608')).toBe('qwen/qwen3.8-27b-thinking-2608');
    expect(key('Qwen/Q-AWQ')).toBe('qwen/qwen3.8-27b-thinking-2608');
  });

  it("keeps the base's organisation: two organisations' models of one name are two", () => {
    expect(uploadKey('other/Qwen3.8-27B', listings.repos)).toBe('other/qwen3.8-27b');
  });
});

describe('parseHuggingFaceListings', () => {
  it('reads id, creation time, downloads and likes; a failed or odd answer is no listing', () => {
    const listings = parseHuggingFaceListings([
      listing('tencent', [{ id: 'tencent/Hy-MT2-30B-A3B', createdDaysAgo: 5, downloads: 4200, likes: 87 }]),
      { request: listing('Qwen', []).request, body: { error: 'rate limited' } },
    ]);
    expect([...listings.repos.values()]).toEqual([
      { id: 'tencent/Hy-MT2-30B-A3B', createdAt: T0 - 5 * DAY, downloads: 4200, likes: 87, quantizes: null },
    ]);
    expect([...listings.answeredOrgs]).toEqual(['tencent']);
  });

  it("skips entries that are not the author's own, wrong types, overlong ids, private ones, and beyond the bound", () => {
    const good = repo({ id: 'Qwen/Good', createdDaysAgo: 1 });
    const body = [
      good,
      repo({ id: 'someone-else/Copy', createdDaysAgo: 1 }),
      { ...good, id: 42 },
      { ...good, id: `Qwen/${'x'.repeat(300)}` },
      { ...good, id: 'Qwen/Secret', private: true },
      { ...good, id: 'Qwen/Odd', downloads: '12', likes: -1, createdAt: 'yesterday', tags: 'base_model:x' },
      'not an object',
      ...Array.from({ length: 1_100 }, (_, i) => ({ ...good, id: `Qwen/Many-${i}` })),
    ];
    const listings = parseHuggingFaceListings([{ request: listing('Qwen', []).request, body }]);
    expect(listings.repos.get('qwen/odd')).toEqual({
      id: 'Qwen/Odd',
      createdAt: null,
      downloads: null,
      likes: null,
      quantizes: null,
    });
    // 1,000 entries read: 2 kept of the first 7, then the 993 first of the many.
    expect(listings.repos.size).toBe(2 + 993);
    expect(listings.skipped).toBe(5 + 107);
  });

  it('takes no base from a tag naming several or an odd one', () => {
    const entry = { ...repo({ id: 'Qwen/Merge', createdDaysAgo: 1 }) };
    entry.tags = [
      'base_model:quantized:Qwen/A',
      'base_model:quantized:Qwen/B',
      'base_model:quantized:../../x',
    ];
    const listings = parseHuggingFaceListings([{ request: listing('Qwen', []).request, body: [entry] }]);
    expect(listings.repos.get('qwen/merge')?.quantizes).toBeNull();
  });
});

describe('orgOf', () => {
  it('takes the organisation of a repository id and nothing else', () => {
    expect(orgOf('meta-llama/Llama-3.1-8B-Instruct')).toBe('meta-llama');
    expect(orgOf('no-slash')).toBeNull();
    expect(orgOf('a/b/c')).toBeNull();
    expect(orgOf(null)).toBeNull();
  });
});
