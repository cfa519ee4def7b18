import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiSchemas, type Model } from '../../src/api/schemas.js';
import {
  CLOSEST_IDS_BUDGET,
  closestIds,
  findModel,
  normalizeId,
  prepareCatalog,
} from '../../src/tools/model-lookup.js';
import { model } from '../fixtures.js';
import { plainLevenshtein } from '../support/levenshtein.js';

const { Model: ModelSchema } = apiSchemas();

const catalog = [
  model(),
  model({ id: 'openai/gpt-4o-mini', huggingfaceId: null }),
  model({ id: 'deepseek/deepseek-r1', huggingfaceId: 'deepseek-ai/DeepSeek-R1' }),
  model({ id: 'meta-llama/llama-3.3-70b-instruct', huggingfaceId: 'meta-llama/Llama-3.3-70B-Instruct' }),
].map((m) => ModelSchema.parse(m));

describe('model lookup', () => {
  it('finds by catalog id or Hugging Face id, case-insensitively', () => {
    expect(findModel(catalog, 'OpenAI/GPT-4o')).toMatchObject({
      matchedBy: 'id',
      model: { id: 'openai/gpt-4o' },
    });
    expect(findModel(catalog, 'deepseek-ai/deepseek-r1')).toMatchObject({
      matchedBy: 'huggingfaceId',
      model: { id: 'deepseek/deepseek-r1' },
    });
  });

  it('accepts the forms people paste', () => {
    expect(normalizeId(' hf:deepseek-ai/DeepSeek-R1 ')).toBe('deepseek-ai/deepseek-r1');
    expect(normalizeId('https://huggingface.co/deepseek-ai/DeepSeek-R1/')).toBe('deepseek-ai/deepseek-r1');
    expect(normalizeId('https://openrouter.ai/openai/gpt-4o')).toBe('openai/gpt-4o');
  });

  it('suggests close ids for a miss, and none for nonsense', () => {
    expect(findModel(catalog, 'openai/gpt-4')).toBeUndefined();
    expect(closestIds(catalog, 'openai/gpt-4')).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini']);
    expect(closestIds(catalog, 'deepseek-r2')).toEqual(['deepseek/deepseek-r1']);
    expect(closestIds(catalog, 'zzzzzz/qqqqq')).toEqual([]);
  });
});

/** A seeded generator: the same "random" catalog on every run, so the bound is never flaky. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomId(next: () => number, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-';
  return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

describe('close ids for a hostile catalog', () => {
  const next = seeded(42);
  const huge = Array.from({ length: 10_000 }, () => ModelSchema.parse(model({ id: randomId(next, 100) })));
  const unknown = randomId(next, 100);

  it('stay quick with 10,000 ids of 100 characters: the work per call is capped', () => {
    const work = { cells: 0 };
    closestIds(huge, unknown, 3, work);
    // The check comes before each candidate: at most one candidate's table beyond the cap.
    expect(work.cells).toBeLessThanOrEqual(CLOSEST_IDS_BUDGET + 2 * 200 * 201);
  });

  it('prepare a catalog snapshot once, and a new snapshot afresh', () => {
    const prepared = prepareCatalog(huge);
    closestIds(huge, unknown);
    expect(prepareCatalog(huge)).toBe(prepared);
    expect(prepareCatalog(huge.slice(0, 10))).not.toBe(prepared);
  });

  it('never suggest an id longer than any real one', () => {
    const long = ModelSchema.parse(model({ id: `openai/gpt-4o${'-x'.repeat(100)}` }));
    expect(closestIds([long], 'openai/gpt-4o')).toEqual([]);
  });
});

/** The search as it was before its work was bounded: every id, every distance in full. */
function plainClosestIds(models: readonly Model[], rawId: string, max = 3): string[] {
  const id = normalizeId(rawId).slice(0, 200);
  const name = id.slice(id.lastIndexOf('/') + 1);
  return models
    .map((m) => {
      let best = Number.POSITIVE_INFINITY;
      for (const c of [m.id, m.huggingfaceId ?? ''].filter(Boolean).map((x) => x.toLowerCase())) {
        const cName = c.slice(c.lastIndexOf('/') + 1);
        const whole = plainLevenshtein(id, c) / Math.max(id.length, c.length, 1);
        const short = plainLevenshtein(name, cName) / Math.max(name.length, cName.length, 1);
        best = Math.min(best, whole, short, name.length >= 3 && c.includes(name) ? 0.2 : 1);
      }
      return { id: m.id, score: best };
    })
    .filter((s) => s.score <= 0.5)
    .sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, max)
    .map((s) => s.id);
}

describe('the bounded search', () => {
  it('suggests exactly what comparing every id in full suggests', () => {
    const part = fc.string({ unit: fc.constantFrom(...'ab-1/'), maxLength: 12 });
    const entry = fc.record({ id: part, huggingfaceId: fc.option(part) });
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 25 }),
        part,
        fc.integer({ min: 1, max: 4 }),
        (raw, id, max) => {
          const models = raw.map((m) => ModelSchema.parse(model(m)));
          expect(closestIds(models, id, max)).toEqual(plainClosestIds(models, id, max));
        },
      ),
      { numRuns: 500 },
    );
  });
});
