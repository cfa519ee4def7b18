import type { GetPromptResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connect, rejection, sandboxApi } from './support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

const text = (result: GetPromptResult, i = 0): string => {
  const content = result.messages[i]!.content;
  if (content.type !== 'text') throw new Error(`message ${i} is ${content.type}, not text`);
  return content.text;
};

/** The embedded resources of a prompt: uri and parsed JSON, in order. */
const embedded = (result: GetPromptResult): { uri: string; data: Record<string, unknown> }[] =>
  result.messages.flatMap((m) => {
    if (m.content.type !== 'resource') return [];
    const resource = m.content.resource as { uri: string; mimeType: string; text: string };
    expect(resource.mimeType).toBe('application/json');
    return [{ uri: resource.uri, data: JSON.parse(resource.text) as Record<string, unknown> }];
  });

async function session(sampleData = false) {
  const s = await connect(sandboxApi(sandbox), { sampleData });
  const get = (name: string, args?: Record<string, string>) =>
    s.client.getPrompt({ name, ...(args && { arguments: args }) });
  return { ...s, get };
}

describe('prompts over a real MCP client (in memory, against the sandbox)', () => {
  it('lists whats_new, compare_models and plan_migration with their arguments', async () => {
    const { client, close } = await session();
    const { prompts } = await client.listPrompts();
    expect(
      prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? '*' : ''}`)]),
    ).toEqual([
      ['whats_new', ['days', 'type', 'vendor']],
      ['compare_models', ['ids*']],
      ['plan_migration', ['id*']],
    ]);
    await close();
  });

  it('whats_new embeds the changes of the last 7 days and asks what to act on', async () => {
    const published = [sandbox.publish('price_change'), sandbox.publish('new_model')];
    sandbox.clearRequests();
    const { get, close } = await session();
    const result = await get('whats_new');
    expect(text(result)).toContain('Summarise what changed in AI models in the last 7 days');
    expect(text(result)).toContain('what to act on');
    const [changes] = embedded(result);
    expect(changes!.uri).toMatch(/^model-feed:\/\/changes\?since=\d+$/);
    const ids = (changes!.data.items as { id: string }[]).map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining(published.map((p) => p.id)));
    expect(changes!.data).toMatchObject({ days: 7, type: null, vendor: null, latest: expect.any(Number) });
    const since = Number(sandbox.requests[0]!.query.since);
    expect(Math.abs(since - (Date.now() / 1000 - 7 * 86_400))).toBeLessThan(60);
    expect(sandbox.requests.map((r) => [r.path, r.query.limit])).toEqual([['/api/v1/changes', '100']]);
    await close();
  });

  it('whats_new forwards days, type and vendor, and says when nothing changed', async () => {
    const { get, close } = await session();
    const result = await get('whats_new', { days: '1', type: 'deprecation', vendor: 'cohere' });
    expect(sandbox.requests[0]!.query).toMatchObject({ type: 'deprecation', model: 'cohere', limit: '100' });
    expect(text(result)).toContain('in the last 1 day (type deprecation, vendor cohere)');
    expect(text(result)).toContain('no changes in this window');
    expect(embedded(result)[0]!.data).toMatchObject({
      days: 1,
      type: 'deprecation',
      vendor: 'cohere',
      items: [],
    });
    // Fields a client form left empty count as not given.
    await get('whats_new', { days: '', type: '', vendor: '' });
    await close();
  });

  it('whats_new: a bad argument gets the tool arguments’ message, and nothing is sent', async () => {
    const { get, close } = await session();
    const days = await rejection(get('whats_new', { days: 'abc' }));
    expect(days.code).toBe(-32602);
    // Word for word what the server sent: the v2 client no longer prefixes "MCP error -32602: ".
    expect(days.message).toBe(
      'Invalid arguments for whats_new: "days" is "abc"; allowed: an integer from 1 to 365.',
    );
    const type = await rejection(get('whats_new', { type: 'launch' }));
    expect(type.message).toContain(
      '"type" is "launch"; allowed: one of new_model, price_change, api_change, open_source_surge, deprecation.',
    );
    const unknown = await rejection(get('whats_new', { since: '5' }));
    expect(unknown.message).toContain('unknown argument "since"; whats_new takes days, type, vendor');
    expect(sandbox.requests).toHaveLength(0);
    await close();
  });

  it('compare_models embeds each model as get_model returns it', async () => {
    const { get, client, close } = await session();
    const result = await get('compare_models', { ids: 'openai/gpt-4o, deepseek-ai/DeepSeek-R1' });
    expect(text(result)).toContain('Compare these models side by side: openai/gpt-4o, deepseek/deepseek-r1.');
    const models = embedded(result);
    expect(models.map((m) => m.uri)).toEqual([
      'model-feed://models/openai%2Fgpt-4o',
      'model-feed://models/deepseek%2Fdeepseek-r1',
    ]);
    expect(sandbox.requests.map((r) => r.path).sort()).toEqual([
      '/api/v1/models',
      '/api/v1/models/deepseek_deepseek-r1/history',
      '/api/v1/models/openai_gpt-4o/history',
    ]);
    const tool = await client.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4o' } });
    expect(models[0]!.data).toEqual(tool.structuredContent);
    await close();
  });

  it('compare_models: 2 to 5 ids, all in the catalog, or a clear message with close ids', async () => {
    const { get, close } = await session();
    const one = await rejection(get('compare_models', { ids: 'openai/gpt-4o' }));
    expect(one.message).toContain(
      'Invalid arguments for compare_models: "ids" is "openai/gpt-4o"; allowed: 2 to 5 model ids, comma-separated.',
    );
    const six = await rejection(get('compare_models', { ids: 'a,b,c,d,e,f' }));
    expect(six.message).toContain('allowed: 2 to 5 model ids');
    const missing = await rejection(get('compare_models'));
    expect(missing.message).toContain('missing required argument "ids"');
    const same = await rejection(
      get('compare_models', { ids: 'deepseek/deepseek-r1, deepseek-ai/DeepSeek-R1' }),
    );
    expect(same.message).toContain('which names one model only');
    sandbox.clearRequests();
    const unknown = await rejection(get('compare_models', { ids: 'openai/gpt-4o, openai/gpt-4' }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain(
      'Invalid arguments for compare_models: "ids": "openai/gpt-4" is not in the catalog. Close ids: openai/gpt-4o',
    );
    // No price history is read for a list with an unknown id.
    expect(sandbox.requests.map((r) => r.path)).toEqual([]);
    await close();
  });

  it('plan_migration embeds the model, its deprecation notices and larger-context candidates by price', async () => {
    const { get, close } = await session();
    const result = await get('plan_migration', { id: 'mistralai/devstral-2512' });
    expect(text(result)).toContain('Plan a migration away from mistralai/devstral-2512.');
    const [model, notices, candidates] = embedded(result);
    expect(model).toMatchObject({
      uri: 'model-feed://models/mistralai%2Fdevstral-2512',
      data: { catalogStatus: 'listed', model: { id: 'mistralai/devstral-2512' } },
    });
    expect(notices!.uri).toBe('model-feed://changes?type=deprecation&model=mistralai');
    const titles = (notices!.data.items as { title: string; eventType: string }[]).map((i) => i.title);
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.every((t) => /devstral 2 2512/i.test(t))).toBe(true);
    expect(text(result)).toContain(`${titles.length} found`);
    expect(candidates!.uri).toBe('model-feed://models?minContext=262144');
    const items = candidates!.data.items as {
      id: string;
      contextLength: number;
      pricing: { inputPerMillion: number };
    }[];
    expect(items).toHaveLength(10);
    expect(items.every((m) => m.contextLength >= 262144 && m.id !== 'mistralai/devstral-2512')).toBe(true);
    const prices = items.map((m) => m.pricing.inputPerMillion);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    expect(sandbox.requests.find((r) => r.path === '/api/v1/changes')!.query).toMatchObject({
      type: 'deprecation',
      model: 'mistralai',
    });
    await close();
  });

  it('plan_migration: an unknown id says so and lists close ids; an unknown prompt is -32602', async () => {
    const { get, close } = await session();
    const unknown = await rejection(get('plan_migration', { id: 'anthropic/claude-sonet-4.5' }));
    expect(unknown.message).toContain(
      '"anthropic/claude-sonet-4.5" is not in the catalog. Close ids: anthropic/claude-sonnet-4.5',
    );
    const none = await rejection(get('plan_migration', { id: 'zzzzzzzz' }));
    expect(none.message).toContain('No close ids; search_models lists the catalog.');
    const prompt = await rejection(get('migrate'));
    expect(prompt.code).toBe(-32602);
    expect(prompt.message).toContain(
      'Unknown prompt "migrate". Available prompts: whats_new, compare_models, plan_migration.',
    );
    await close();
  });

  it('says the data is sample data when the sandbox answers (--sandbox)', async () => {
    const { get, close } = await session(true);
    const result = await get('compare_models', { ids: 'openai/gpt-4o,openai/gpt-4o-mini' });
    expect(text(result)).toContain('sample data from the built-in sandbox');
    await close();
  });
});
