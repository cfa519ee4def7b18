import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FeedApi, unavailableApi } from '../../src/api/client.js';
import type { Model } from '../../src/api/schemas.js';
import { completeIds } from '../../src/completions.js';
import { ConfigError } from '../../src/errors.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connect, sandboxApi } from './support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

type Ref = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
const prompt = (name: string): Ref => ({ type: 'ref/prompt', name });
const template: Ref = { type: 'ref/resource', uri: 'model-feed://models/{id}' };

async function session() {
  const s = await connect(sandboxApi(sandbox));
  const complete = async (ref: Ref, name: string, value: string) =>
    (await s.client.complete({ ref, argument: { name, value } })).completion;
  return { ...s, complete };
}

describe('completion/complete over a real MCP client (in memory, against the sandbox)', () => {
  it('openai/gp offers openai/gpt-… ids first, by attention', async () => {
    const { complete, close } = await session();
    const done = await complete(prompt('plan_migration'), 'id', 'openai/gp');
    const firstNonGpt = done.values.findIndex((v) => !v.startsWith('openai/gpt-'));
    const gpt = firstNonGpt === -1 ? done.values : done.values.slice(0, firstNonGpt);
    expect(gpt.length).toBeGreaterThanOrEqual(5);
    // Attention order: gpt-5.5 (#10) before gpt-oss-120b (#14) before gpt-5.4 (#17) … gpt-4o (#51).
    expect(gpt.slice(0, 3)).toEqual(['openai/gpt-5.5', 'openai/gpt-oss-120b', 'openai/gpt-5.4']);
    expect(gpt.at(-1)).toBe('openai/gpt-4o');
    expect(done.total).toBe(done.values.length);
    expect(done.hasMore).toBe(false);
    await close();
  });

  it('deepseek-ai/deeps offers the Hugging Face ids, in their own spelling', async () => {
    const { complete, close } = await session();
    const done = await complete(template, 'id', 'deepseek-ai/deeps');
    expect(done.values).toContain('deepseek-ai/DeepSeek-R1');
    expect(done.values.slice(0, 2)).toEqual(['deepseek-ai/DeepSeek-V4-Pro', 'deepseek-ai/DeepSeek-V4-Flash']);
    await close();
  });

  it('a typo gets close ids after the prefix matches', async () => {
    const { complete, close } = await session();
    const done = await complete(prompt('plan_migration'), 'id', 'openai/gtp-4o');
    expect(done.values).toContain('openai/gpt-4o');
    await close();
  });

  it('an empty value offers at most 100 ids with total and hasMore', async () => {
    const { complete, close } = await session();
    const done = await complete(template, 'id', '');
    // 55 catalog ids, and the 21 Hugging Face ids that are not also a catalog id (case aside).
    expect(done.values).toHaveLength(76);
    expect(done.values[0]).toBe('z-ai/glm-5.1');
    expect(done.values[1]).toBe('zai-org/GLM-5.1');
    expect(done).toMatchObject({ total: 76, hasMore: false });
    const many = await completeIds(
      Array.from({ length: 150 }, (_, i) => ({ id: `v/m${i}` }) as never),
      'v/',
    );
    expect(many).toMatchObject({ total: 150, hasMore: true });
    expect(many.values).toHaveLength(100);
    await close();
  });

  it('compare_models completes the last id of the list and leaves out ids already listed', async () => {
    const { complete, close } = await session();
    const done = await complete(prompt('compare_models'), 'ids', 'openai/gpt-4o, openai/gpt-4o');
    expect(done.values[0]).toBe('openai/gpt-4o, openai/gpt-4o-mini');
    expect(done.values).not.toContain('openai/gpt-4o, openai/gpt-4o');
    await close();
  });

  it('vendors, event types and days', async () => {
    const { complete, close } = await session();
    expect((await complete(prompt('whats_new'), 'vendor', 'MI')).values).toEqual([
      'mistralai',
      'minimax',
      'microsoft',
    ]);
    expect((await complete(prompt('whats_new'), 'type', 'p')).values).toEqual(['price_change']);
    expect((await complete(prompt('whats_new'), 'type', '')).values).toEqual([
      'new_model',
      'price_change',
      'api_change',
      'open_source_surge',
      'deprecation',
    ]);
    expect((await complete(prompt('whats_new'), 'days', '1')).values).toEqual(['1', '14']);
    await close();
  });

  it('an unknown prompt, argument or template gets an empty answer, not an error', async () => {
    const { complete, close } = await session();
    expect(await complete(prompt('test_prompt_with_arguments'), 'arg1', 'a')).toEqual({ values: [] });
    expect(await complete(prompt('whats_new'), 'nope', 'a')).toEqual({ values: [] });
    expect(await complete({ type: 'ref/resource', uri: 'model-feed://other/{x}' }, 'x', 'a')).toEqual({
      values: [],
    });
    expect(sandbox.requests).toHaveLength(0);
    await close();
  });

  it('answers from the cached catalog: one request when cold, none when warm', async () => {
    const { complete, client, close } = await session();
    await complete(template, 'id', 'o');
    expect(sandbox.requests.map((r) => r.path)).toEqual(['/api/v1/models']);
    sandbox.clearRequests();
    for (const value of ['op', 'ope', 'open', 'openai/', 'openai/g']) await complete(template, 'id', value);
    await complete(prompt('whats_new'), 'vendor', 'an');
    await complete(prompt('compare_models'), 'ids', 'openai/gpt-4o, anth');
    // A tool call with the same (unfiltered) catalog read shares it too.
    await client.callTool({ name: 'search_models', arguments: {} });
    expect(sandbox.requests).toHaveLength(0);
    await close();
  });

  it('without a usable setup it offers nothing, quietly', async () => {
    const api = unavailableApi(new ConfigError('No API key', 'MODEL_FEED_API_KEY'));
    const { client, close } = await connect(api);
    const done = await client.complete({ ref: template, argument: { name: 'id', value: 'open' } });
    expect(done.completion).toEqual({ values: [] });
    await close();
  });
});

/** A catalog of `size` models across 50 vendors, each with a Hugging Face id, ranked in order. */
function bigCatalog(size: number): Model[] {
  return Array.from({ length: size }, (_, i) => ({
    id: `vendor-${i % 50}/model-${i}-instruct`,
    huggingfaceId: `Vendor-${i % 50}/Model-${i}-Instruct-HF`,
    attention: { rank: i + 1 },
  })) as Model[];
}

/** An API whose catalog is already in hand, as a warm cache serves it. */
function catalogApi(models: Model[]): FeedApi {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    readChanges: fail,
    listChanges: fail,
    listModels: async () => ({ items: models, total: models.length }),
    getPriceHistory: fail,
    rateLimit: undefined,
  } as unknown as FeedApi;
}

describe('completion/complete on a large catalog', () => {
  const models = bigCatalog(5000);
  const ids = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => models[from + i * 7]!.id).join(', ');
  // The largest arguments compare_models accepts (1,000 characters): four real ids and a typo to
  // complete, which also asks for close ids; and a list of 500 one-letter ids.
  const fullList = `${ids(100, 4)}, vendor-3/modle-4003-instrcut`.padEnd(1000, ' ');
  const manyIds = 'x,'.repeat(500).slice(0, 1000);

  it('answers the largest allowed argument, and a tools/list sent beside it is answered too', async () => {
    const { client, close } = await connect(catalogApi(models));
    const complete = (value: string) =>
      client.complete({ ref: prompt('compare_models'), argument: { name: 'ids', value } });
    // The first answer prepares the catalog; every later keystroke finds it ready.
    expect((await complete(fullList)).completion.values[0]).toMatch(/vendor-3\/model-4003-instruct$/);
    for (const value of [fullList, manyIds]) {
      for (let round = 0; round < 3; round++) {
        const [completed, listed] = await Promise.all([complete(value), client.listTools()]);
        expect(Array.isArray(completed.completion.values)).toBe(true);
        expect(listed.tools).toHaveLength(3);
      }
    }
    await close();
  }, 60_000);

  it('an argument past what the prompt accepts (characters or ids) gets an empty answer at once', async () => {
    const { client, close } = await connect(catalogApi(models));
    const complete = async (name: string, value: string) =>
      (await client.complete({ ref: prompt('compare_models'), argument: { name, value } })).completion;
    // Counted, not compared: a failure must not print thousands of suggestions.
    expect((await complete('ids', 'x,'.repeat(50_000))).values.length).toBe(0);
    expect((await complete('ids', `${ids(0, 5)}, vendor-1/`)).values.length).toBe(0);
    const template = { type: 'ref/resource', uri: 'model-feed://models/{id}' } as const;
    const long = await client.complete({
      ref: template,
      argument: { name: 'id', value: `v${'x'.repeat(200)}` },
    });
    expect(long.completion.values.length).toBe(0);
    // One id short of the prompt's five: the fifth is still offered.
    expect((await complete('ids', `${ids(0, 4)}, vendor-1/model-1`)).values.length).toBeGreaterThan(0);
    await close();
  }, 60_000);
});
