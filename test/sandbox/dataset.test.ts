import { describe, expect, it } from 'vitest';
import { buildDataset, historySlug } from '../../src/sandbox/dataset.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import type { Model } from '../../src/sandbox/types.js';

const raw = loadBundledData();
const dataset = buildDataset(raw);
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const REMOVED = [
  'anthropic/claude-3.5-haiku',
  'google/gemini-2.0-flash-001',
  'x-ai/grok-3',
  'x-ai/grok-4',
  'x-ai/grok-code-fast-1',
];

function model(id: string): Model {
  const found = dataset.catalog.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`${id} is not in the catalog`);
  return found;
}

function history(id: string) {
  const found = dataset.histories.get(historySlug(id));
  if (found === undefined) throw new Error(`no history for ${id}`);
  return found;
}

describe('change events', () => {
  it('serves all 53 events in the ChangeEvent shape, without catalogId', () => {
    expect(dataset.events).toHaveLength(53);
    for (const event of dataset.events) {
      expect(Object.keys(event).sort()).toEqual(
        [
          'afterValue',
          'beforeValue',
          'detectedAt',
          'eventType',
          'id',
          'model',
          'official',
          'publishedAt',
          'sourceName',
          'sourceUrl',
          'summary',
          'title',
          'verificationStatus',
        ].sort(),
      );
      expect(Object.keys(event.model).sort()).toEqual(['accentColor', 'company', 'name', 'slug']);
      expect(event.official).toBe(event.verificationStatus === 'official');
      expect(event.detectedAt).toMatch(DATE_TIME);
      if (event.publishedAt !== null) expect(event.publishedAt).toMatch(DATE_TIME);
    }
  });

  it('gives each event a distinct UUID derived from its content, the same on every run', () => {
    const ids = dataset.events.map((event) => event.id);
    for (const id of ids) expect(id).toMatch(UUID_V5);
    expect(new Set(ids).size).toBe(ids.length);
    expect(buildDataset(loadBundledData()).events.map((event) => event.id)).toEqual(ids);
    expect(dataset.events[0]?.title).toBe('R1 added to the OpenRouter catalog');
    expect(ids[0]).toBe('26f97323-4317-5dc8-aa68-f090a52f2570');
  });

  it('keeps an id when only the verification status differs', () => {
    const first = raw.events[1];
    if (first === undefined) throw new Error('no event');
    const official = buildDataset({ ...raw, events: [{ ...first, verificationStatus: 'official' }] });
    expect(official.events[0]?.id).toBe(dataset.events[1]?.id);
  });

  it('turns a bare publishedAt date into a date-time at 00:00 UTC', () => {
    expect(dataset.events[1]?.publishedAt).toBe('2025-01-20T00:00:00Z');
  });
});

describe('catalog', () => {
  it('holds the 55 models whose latest status is not removed; deprecated ones stay', () => {
    expect(dataset.catalog).toHaveLength(55);
    const ids = dataset.catalog.map((entry) => entry.id);
    for (const id of REMOVED) expect(ids).not.toContain(id);
    expect(ids).toContain('mistralai/devstral-2512');
  });

  it('maps the data to the Model shape', () => {
    expect(model('google/gemma-4-31b-it')).toMatchObject({
      id: 'google/gemma-4-31b-it',
      name: 'Gemma 4 31B',
      displayName: 'Google: Gemma 4 31B',
      vendor: 'google',
      type: 'open_source',
      contextLength: 262144,
      listedAt: 1775148486,
      huggingfaceId: 'google/gemma-4-31B-it',
      url: 'https://openrouter.ai/google/gemma-4-31b-it',
    });
    expect(model('openai/gpt-4o')).toMatchObject({
      type: 'commercial',
      huggingfaceId: null,
      vendor: 'openai',
    });
    expect(model('meta-llama/llama-4-scout').vendor).toBe('meta-llama');
  });

  it('prices each model at the newest catalog snapshot', () => {
    expect(model('openai/gpt-4o').pricing).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(model('openai/gpt-oss-120b').pricing).toEqual({ inputPerMillion: 0.03, outputPerMillion: 0.15 });
  });

  it('takes context length from a later official api_change, not from a pending one', () => {
    expect(model('meta-llama/llama-3.1-8b-instruct').contextLength).toBe(131072);
    expect(model('deepseek/deepseek-chat').contextLength).toBe(128000);
    expect(model('z-ai/glm-5.1').contextLength).toBe(202752);
  });

  it('orders by attention rank 1..n, scores not increasing, equal scores by id', () => {
    dataset.catalog.forEach((entry, index) => {
      expect(entry.attention.rank).toBe(index + 1);
      const next = dataset.catalog[index + 1];
      if (next === undefined) return;
      expect(entry.attention.score).toBeGreaterThanOrEqual(next.attention.score);
      if (entry.attention.score === next.attention.score) expect(entry.id < next.id).toBe(true);
    });
  });

  it('counts news and opinions from the events about the model', () => {
    // deepseek-r1: a new_model event (official) and an open_source_surge (pending).
    expect(model('deepseek/deepseek-r1').attention).toMatchObject({ newsCount: 2, opinions: 1 });
    expect(model('openai/gpt-4o').attention).toMatchObject({ newsCount: 0, opinions: 0 });
  });

  it('measures novelty from a fixed date of the data, not the wall clock', () => {
    expect(dataset.referenceTime).toBe(Date.UTC(2026, 6, 1) / 1000);
  });
});

describe('price history', () => {
  it('exists for every catalog model and for no other', () => {
    expect([...dataset.histories.keys()].sort()).toEqual(
      dataset.catalog.map((entry) => historySlug(entry.id)).sort(),
    );
    for (const id of REMOVED) expect(dataset.histories.has(historySlug(id))).toBe(false);
  });

  it('starts when recording began (the earliest detectedAt) or at listing, if later', () => {
    expect(dataset.recordingSince).toBe(Date.parse('2025-01-20T13:51:35Z') / 1000);
    for (const entry of dataset.catalog) {
      const found = history(entry.id);
      expect(found).toMatchObject({ id: entry.id, currency: 'USD', unit: 'per 1M tokens' });
      expect(found.since).toBe(dataset.recordingSince);
      expect(found.points[0]?.observedAt).toBe(Math.max(dataset.recordingSince, entry.listedAt ?? 0));
    }
  });

  it('has a point only where the price changed, and ends at the current price', () => {
    for (const entry of dataset.catalog) {
      const { points } = history(entry.id);
      expect(points.length).toBeGreaterThanOrEqual(1);
      points.slice(1).forEach((point, index) => {
        const previous = points[index];
        expect(point.observedAt).toBeGreaterThan(previous?.observedAt ?? 0);
        expect([point.inputPrice, point.outputPrice]).not.toEqual([
          previous?.inputPrice,
          previous?.outputPrice,
        ]);
      });
      const last = points.at(-1);
      expect({ inputPerMillion: last?.inputPrice, outputPerMillion: last?.outputPrice }).toEqual(
        entry.pricing,
      );
    }
  });

  it('records official price changes at their detection time', () => {
    expect(history('openai/gpt-oss-120b').points).toEqual([
      { inputPrice: 0.15, outputPrice: 0.6, observedAt: 1754414231 },
      { inputPrice: 0.072, outputPrice: 0.28, observedAt: Date.parse('2025-09-10T19:14:52Z') / 1000 },
      { inputPrice: 0.039, outputPrice: 0.18, observedAt: Date.parse('2026-05-15T15:00:32Z') / 1000 },
      { inputPrice: 0.03, outputPrice: 0.15, observedAt: Date.parse('2026-07-01T23:59:59Z') / 1000 },
    ]);
  });

  it('ignores a pending price change', () => {
    // The pending event claims deepseek-v4-pro went to $0; the catalog never showed it.
    expect(history('deepseek/deepseek-v4-pro').points).toEqual([
      { inputPrice: 0.435, outputPrice: 0.87, observedAt: 1777000679 },
    ]);
  });

  it('holds one unchanged price for a model listed before recording began', () => {
    expect(history('openai/gpt-4o').points).toEqual([
      { inputPrice: 2.5, outputPrice: 10, observedAt: dataset.recordingSince },
    ]);
  });
});
