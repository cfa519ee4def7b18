import { describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH, MAX_MODELS, parseOpenRouterCatalog } from '../../src/public/openrouter-catalog.js';
import { answer, listing, T0 } from './catalog-fixtures.js';

function parse(models: unknown[]) {
  const parsed = parseOpenRouterCatalog(answer(models), T0);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.snapshot;
}

function one(facts: Parameters<typeof listing>[0]) {
  const model = parse([listing(facts)]).models.get(facts.id);
  if (model === undefined) throw new Error(`${facts.id} not parsed`);
  return model;
}

describe('parseOpenRouterCatalog', () => {
  it('gives prices in USD per 1M tokens from per-token decimal strings', () => {
    // openai/gpt-5.6-sol's listing via ~openai/gpt-latest, 2026-08-21: $2.50 in, $15 out per 1M.
    const model = one({ id: 'openai/gpt-5.6-sol', prompt: '0.0000025', completion: '0.000015' });
    expect(model.inputPerMillion).toBe(2.5);
    expect(model.outputPerMillion).toBe(15);
  });

  it('removes float noise the catalog carries', () => {
    // qwen/qwen-2.5-coder-32b-instruct was listed at this price in March 2026 (public-origins.md).
    const model = one({ id: 'qwen/qwen-2.5-coder-32b-instruct', prompt: '0.00000020000000000000002' });
    expect(model.inputPerMillion).toBe(0.2);
    // deepseek/deepseek-v4-flash on 2026-08-20: a plain float product would read 0.08259999999999999.
    expect(one({ id: 'deepseek/deepseek-v4-flash', prompt: '0.0000000826' }).inputPerMillion).toBe(0.0826);
  });

  it('reads "-1", a router’s variable price, as no price', () => {
    const model = one({ id: 'openrouter/auto', prompt: '-1', completion: '-1' });
    expect(model.inputPerMillion).toBeNull();
    expect(model.outputPerMillion).toBeNull();
  });

  it('reads the 2098-12-31 placeholder as no expiration date, and keeps a real one', () => {
    // stealth/ox-alpha arrived with the placeholder on 2026-08-21.
    expect(one({ id: 'stealth/ox-alpha', expiration: '2098-12-31' }).expirationDate).toBeNull();
    // dots-studio/dots-3-note-preview:free got 2026-09-30 on 2026-08-20.
    expect(one({ id: 'dots-studio/dots-3-note-preview:free', expiration: '2026-09-30' }).expirationDate).toBe(
      '2026-09-30',
    );
  });

  it('maps variants and aliases to their base id', () => {
    const snapshot = parse([
      listing({ id: 'openai/gpt-oss-20b:free' }),
      listing({ id: 'z-ai/glm-5.2:batch' }),
      listing({ id: 'x-ai/grok-4.6:thinking' }),
      listing({ id: '~anthropic/claude-opus-latest', aliasTarget: 'anthropic/claude-opus-5' }),
      listing({ id: '~vendor/unknown-latest' }),
    ]);
    const bases = [...snapshot.models.values()].map((model) => [model.id, model.baseId, model.alias]);
    expect(bases).toEqual([
      ['openai/gpt-oss-20b:free', 'openai/gpt-oss-20b', false],
      ['z-ai/glm-5.2:batch', 'z-ai/glm-5.2', false],
      ['x-ai/grok-4.6:thinking', 'x-ai/grok-4.6', false],
      ['~anthropic/claude-opus-latest', 'anthropic/claude-opus-5', true],
      ['~vendor/unknown-latest', 'vendor/unknown-latest', true],
    ]);
  });

  it('keeps the other values, with empty Hugging Face ids as null and modalities sorted', () => {
    // tencent/hy-mt2-30b-a3b, listed 2026-08-20 with its Hugging Face id.
    const model = one({
      id: 'tencent/hy-mt2-30b-a3b',
      name: 'Tencent: Hy-MT2 30B A3B',
      context: 262144,
      input: ['text', 'image', 'text'],
      created: T0 - 3600,
      hf: 'tencent/Hy-MT2-30B-A3B',
    });
    expect(model).toMatchObject({
      name: 'Tencent: Hy-MT2 30B A3B',
      contextLength: 262144,
      inputModalities: ['image', 'text'],
      outputModalities: ['text'],
      created: T0 - 3600,
      huggingFaceId: 'tencent/Hy-MT2-30B-A3B',
    });
    expect(one({ id: 'mancer/weaver', hf: '' }).huggingFaceId).toBeNull();
    // A registration time no date-time can hold would break every event dated from it.
    expect(one({ id: 'mancer/weaver', created: 1e20 }).created).toBeNull();
  });

  it('skips and counts a model it cannot use (an id that is not printable ASCII among them), and lets unknown fields and odd values pass', () => {
    const snapshot = parse([
      { name: 'no id' },
      { ...listing({ id: 'x'.repeat(MAX_ID_LENGTH + 1) }) },
      { ...listing({ id: 'a/b' }), id: 42 },
      listing({ id: 'evil/\u001b]0;PWNED\u0007' }),
      listing({ id: 'spaced/model name' }),
      listing({ id: 'mistralai/ministral-8b' }),
      listing({ id: 'mistralai/ministral-8b', prompt: '0.000001' }),
      {
        ...listing({ id: 'liquid/lfm-2.5-2.6b:free' }),
        context_length: 'lots',
        pricing: 7,
        brand_new_field: { a: 1 },
      },
      'not an object',
    ]);
    expect([...snapshot.models.keys()]).toEqual(['mistralai/ministral-8b', 'liquid/lfm-2.5-2.6b:free']);
    expect(snapshot.skipped).toBe(7);
    expect(snapshot.models.get('mistralai/ministral-8b')?.inputPerMillion).toBe(0.3);
    expect(snapshot.models.get('liquid/lfm-2.5-2.6b:free')).toMatchObject({
      contextLength: null,
      inputPerMillion: null,
    });
  });

  it('keeps at most MAX_MODELS models and counts the rest', () => {
    const many = Array.from({ length: MAX_MODELS + 2 }, (_, index) => listing({ id: `v/m-${index}` }));
    const snapshot = parse(many);
    expect(snapshot.models.size).toBe(MAX_MODELS);
    expect(snapshot.skipped).toBe(2);
  });

  it('refuses an answer with no list of models', () => {
    expect(parseOpenRouterCatalog({ error: 'nope' }, T0)).toEqual({
      ok: false,
      reason: 'the answer has no "data" list of models',
    });
    expect(parseOpenRouterCatalog(null, T0).ok).toBe(false);
  });
});
