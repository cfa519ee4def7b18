/**
 * A model the catalog lists whose price history answers 404 (removed between the two reads, or an
 * inconsistent service): get_model and the model's resource still answer the model, with a note
 * that its history could not be read. Built CLI over stdio, against a stub service on port 0.
 */

import { afterAll, beforeAll, expect, it } from 'vitest';
import { model, modelsPage } from '../fixtures.js';
import { type FaultServer, json, startFaultServer } from '../support/fault-server.js';
import { connectCli, resultText, scrubbedEnv } from './harness.js';

const KEY = 'mfsk_history_gone_0123456789';
let service: FaultServer;

beforeAll(async () => {
  service = await startFaultServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/api/v1/models') json(res, 200, modelsPage([model(), model({ id: 'openai/gpt-4o-mini' })]));
    else json(res, 404, { error: 'model not in catalog' });
  });
});
afterAll(() => service.close());

it('get_model answers a listed model whose history is 404 with the model and a note, not not_listed', async () => {
  const session = await connectCli(
    scrubbedEnv({ MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: service.url }),
  );
  try {
    const result = await session.call('get_model', { id: 'openai/gpt-4o' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      catalogStatus: 'listed',
      matchedBy: 'id',
      model: { id: 'openai/gpt-4o' },
      priceHistory: null,
      priceHistoryNote: expect.stringContaining('404'),
    });
    const text = resultText(result);
    expect(text).toContain('openai/gpt-4o');
    expect(text).toMatch(/price history could not be read/i);
    expect(text).not.toContain('not_listed');
    expect(service.requests.map((r) => r.url?.split('?')[0])).toContain(
      '/api/v1/models/openai_gpt-4o/history',
    );

    const read = await session.client.readResource({ uri: 'model-feed://models/openai%2Fgpt-4o' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      catalogStatus: 'listed',
      model: { id: 'openai/gpt-4o' },
      priceHistory: null,
    });
    expect(session.protocolErrors).toEqual([]);
  } finally {
    await session.close();
  }
});
