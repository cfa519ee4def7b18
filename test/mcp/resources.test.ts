import type { JSONRPCErrorResponse } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unavailableApi } from '../../src/api/client.js';
import { ConfigError } from '../../src/errors.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connect, rejection, sandboxApi } from './support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

const paths = () => sandbox.requests.map((r) => r.path);

describe('resources over a real MCP client (in memory, against the sandbox)', () => {
  it('declares resources with subscribe, prompts and completions, and lists one resource and one template', async () => {
    const { client, close } = await connect(sandboxApi(sandbox));
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      completions: {},
    });
    expect((await client.listResources()).resources).toEqual([
      expect.objectContaining({ uri: 'model-feed://changes', mimeType: 'application/json' }),
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'model-feed://models/{id}', mimeType: 'application/json' }),
    ]);
    expect(sandbox.requests).toHaveLength(0);
    await close();
  });

  it('model-feed://changes: the 20 latest changes, newest first, with latest; the same request as list_model_changes', async () => {
    const { client, close } = await connect(sandboxApi(sandbox));
    const read = await client.readResource({ uri: 'model-feed://changes' });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri: 'model-feed://changes', mimeType: 'application/json' });
    const page = JSON.parse(content.text) as { items: { detectedAt: string }[]; latest: number };
    expect(page.items).toHaveLength(20);
    expect(page.latest).toBeGreaterThan(0);
    const times = page.items.map((i) => Date.parse(i.detectedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([['/api/v1/changes', { limit: '20' }]]);

    sandbox.clearRequests();
    await client.callTool({ name: 'list_model_changes', arguments: { limit: 20 } });
    expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([['/api/v1/changes', { limit: '20' }]]);
    await close();
  });

  it('model-feed://models/{id}: get_model’s structured result, by catalog id or Hugging Face id, through the cache', async () => {
    const { client, close } = await connect(sandboxApi(sandbox));
    const uri = `model-feed://models/${encodeURIComponent('openai/gpt-4o')}`;
    const read = await client.readResource({ uri });
    const record = JSON.parse((read.contents[0] as { text: string }).text);
    const tool = await client.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4o' } });
    expect(record).toEqual(tool.structuredContent);
    expect(record).toMatchObject({
      catalogStatus: 'listed',
      matchedBy: 'id',
      model: { id: 'openai/gpt-4o' },
      priceHistory: { points: expect.any(Array) },
    });
    // The tool call after the read was answered from the cache.
    expect(paths()).toEqual(['/api/v1/models', '/api/v1/models/openai_gpt-4o/history']);

    const byHf = await client.readResource({
      uri: `model-feed://models/${encodeURIComponent('deepseek-ai/DeepSeek-R1')}`,
    });
    expect(JSON.parse((byHf.contents[0] as { text: string }).text)).toMatchObject({
      matchedBy: 'huggingfaceId',
      model: { id: 'deepseek/deepseek-r1' },
    });
    // A bare slash, as people type it, is read too.
    const bare = await client.readResource({ uri: 'model-feed://models/openai/gpt-4o' });
    expect(JSON.parse((bare.contents[0] as { text: string }).text)).toMatchObject({
      model: { id: 'openai/gpt-4o' },
    });
    await close();
  });

  // A 2025 server (createServer's default era): 2025-11-25's -32002 on the wire.
  it('an unknown id is resource-not-found (-32002 in 2025) listing close ids; an unknown URI names the resources', async () => {
    const { client, sent, close } = await connect(sandboxApi(sandbox));
    // The code the server sent, read on the wire.
    const sentCode = () =>
      (sent.findLast((m) => 'error' in m) as JSONRPCErrorResponse | undefined)?.error.code;
    const uri = `model-feed://models/${encodeURIComponent('openai/gpt-4')}`;
    const missing = await rejection(client.readResource({ uri }));
    expect(sentCode()).toBe(-32002);
    expect(missing.message).toContain('"openai/gpt-4" is not in the catalog. Close ids: openai/gpt-4o');
    expect(missing.data).toEqual({ uri });

    const other = await rejection(client.readResource({ uri: 'model-feed://nothing' }));
    expect(sentCode()).toBe(-32002);
    expect(other.message).toContain('model-feed://changes');
    expect(other.message).toContain('model-feed://models/{id}');
    await close();
  });

  it('an unknown id costs one catalog request with the cache off, as get_model does', async () => {
    const { client, close } = await connect(sandboxApi(sandbox, 0));
    const uri = `model-feed://models/${encodeURIComponent('openai/gpt-4')}`;
    const missing = await rejection(client.readResource({ uri }));
    expect(missing.message).toContain('Close ids: openai/gpt-4o');
    expect(paths()).toEqual(['/api/v1/models']);

    sandbox.clearRequests();
    await client.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4' } });
    expect(paths()).toEqual(['/api/v1/models']);
    await close();
  });

  it('an unusable setup is an error that says what to set, never a crash', async () => {
    const api = unavailableApi(new ConfigError('No API key: set MODEL_FEED_API_KEY.', 'MODEL_FEED_API_KEY'));
    const { client, close } = await connect(api);
    const failed = await rejection(client.readResource({ uri: 'model-feed://changes' }));
    expect(failed.code).toBe(-32603);
    expect(failed.message).toContain('No API key: set MODEL_FEED_API_KEY.');
    await close();
  });
});
