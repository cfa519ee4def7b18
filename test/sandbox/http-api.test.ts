import { Agent, get as httpGet, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import {
  call,
  type ErrorBody,
  expectChangeEvent,
  expectModel,
  expectPriceHistory,
  type FeedPageBody,
  type ModelListBody,
  type PriceHistory,
  rateLimitHeaders,
} from './http-helpers.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

describe('startSandbox', () => {
  it('listens on loopback with a generated key', () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.key).toMatch(/^mfsk_sandbox_[0-9a-f]{32}$/);
  });

  it('uses the key and tier it is given', async () => {
    const own = await startSandbox({ key: 'mfsk_given', tier: 'pro' });
    try {
      expect(own.key).toBe('mfsk_given');
      const answer = await call(own, '/api/v1/models');
      expect(rateLimitHeaders(answer.headers)).toEqual({ limit: '100000', remaining: '99999', tier: 'pro' });
    } finally {
      await own.close();
    }
  });
});

describe('GET /api/v1/changes', () => {
  it('answers newest first with every ChangeEvent field, as JSON', async () => {
    const answer = await call<FeedPageBody>(sandbox, '/api/v1/changes');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(answer.body).sort()).toEqual(['items', 'latest', 'nextCursor']);
    expect(answer.body.items).toHaveLength(20);
    for (const event of answer.body.items) expectChangeEvent(event);
    const times = answer.body.items.map((event) => Date.parse(event.detectedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(answer.body.nextCursor).toEqual(expect.any(Number));
    expect(answer.body.latest).toEqual(expect.any(Number));
  });

  it('filters by type and vendor slug', async () => {
    const answer = await call<FeedPageBody>(
      sandbox,
      '/api/v1/changes?type=price_change&model=deepseek&limit=100',
    );
    expect(answer.body.items.length).toBeGreaterThan(0);
    for (const event of answer.body.items)
      expect(event).toMatchObject({ eventType: 'price_change', model: { slug: 'deepseek' } });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['since=-1', 'since'],
    ['since=1.5', 'since'],
    ['before=x', 'before'],
    ['type=launch', 'type'],
  ])('%s → 400 with an Error body naming %s, and the rate-limit headers', async (query, name) => {
    const answer = await call<ErrorBody>(sandbox, `/api/v1/changes?${query}`);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toContain(`"${name}"`);
    expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });
});

describe('GET /api/v1/models', () => {
  it('lists the catalog by attention rank with every Model field', async () => {
    const answer = await call<ModelListBody>(sandbox, '/api/v1/models');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['items', 'total']);
    expect(answer.body.total).toBe(55);
    expect(answer.body.items).toHaveLength(55);
    for (const model of answer.body.items) expectModel(model);
    expect(answer.body.items.map((model) => model.attention.rank)).toEqual(
      Array.from({ length: 55 }, (_, index) => index + 1),
    );
  });

  it('filters by vendor (case-insensitive), maxInputPrice and minContext', async () => {
    const answer = await call<ModelListBody>(
      sandbox,
      '/api/v1/models?vendor=DeepSeek&maxInputPrice=0.3&minContext=200000',
    );
    expect(answer.body.items.map((model) => model.id).sort()).toEqual(['deepseek/deepseek-v4-flash']);
    expect(answer.body.total).toBe(1);
    const none = await call<ModelListBody>(sandbox, '/api/v1/models?vendor=nobody');
    expect(none.body).toEqual({ items: [], total: 0 });
  });

  it.each([
    ['maxInputPrice=cheap', 'maxInputPrice'],
    ['minContext=-1', 'minContext'],
  ])('%s → 400 naming %s', async (query, name) => {
    const answer = await call<ErrorBody>(sandbox, `/api/v1/models?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(`"${name}"`);
  });
});

describe('GET /api/v1/models/{slug}/history', () => {
  it('answers the price history with every field', async () => {
    const answer = await call<PriceHistory>(sandbox, '/api/v1/models/openai_gpt-oss-120b/history');
    expect(answer.status).toBe(200);
    expectPriceHistory(answer.body);
    expect(answer.body).toMatchObject({ id: 'openai/gpt-oss-120b', currency: 'USD', unit: 'per 1M tokens' });
    expect(answer.body.points.length).toBe(4);
  });

  it('decodes the path segment', async () => {
    const answer = await call<PriceHistory>(sandbox, '/api/v1/models/openai%5Fgpt-4o/history');
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe('openai/gpt-4o');
  });

  it('404s with an Error body for a model not in the catalog, removed ones included', async () => {
    for (const slug of ['x-ai_grok-3', 'nobody_nothing', 'openai%2Fgpt-4o']) {
      const answer = await call<ErrorBody>(sandbox, `/api/v1/models/${slug}/history`);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatch(/not in the catalog/);
      expect(rateLimitHeaders(answer.headers).tier).toBe('free');
    }
  });

  it('400s on a slug that is not valid percent-encoding', async () => {
    const answer = await call<ErrorBody>(sandbox, '/api/v1/models/bad%E0%A4/history');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/percent-encoding/);
  });
});

describe('other paths and methods', () => {
  it('404s on an unknown path with an Error body', async () => {
    const answer = await call<ErrorBody>(sandbox, '/api/v2/changes');
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatch(/No endpoint at \/api\/v2\/changes/);
  });

  it('405s on a wrong method, saying which is allowed', async () => {
    const answer = await call<ErrorBody>(sandbox, '/api/v1/changes', { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(answer.body.error).toMatch(/use GET/);
  });

  it('counts every authenticated call, whatever its answer', async () => {
    const before = Number((await call(sandbox, '/api/v1/models')).headers.get('x-ratelimit-remaining'));
    await call(sandbox, '/nowhere');
    await call(sandbox, '/api/v1/changes?limit=0');
    const after = Number((await call(sandbox, '/api/v1/models')).headers.get('x-ratelimit-remaining'));
    expect(before - after).toBe(3);
  });
});

describe('request log', () => {
  it('records method, path, decoded query, headers and time; clearRequests empties it', async () => {
    sandbox.clearRequests();
    await call(sandbox, '/api/v1/changes?model=open%20ai&type=new_model&type=deprecation', {
      headers: { 'x-trace': 'yes' },
    });
    expect(sandbox.requests).toHaveLength(1);
    const [recorded] = sandbox.requests;
    expect(recorded).toMatchObject({
      method: 'GET',
      path: '/api/v1/changes',
      query: { model: 'open ai', type: ['new_model', 'deprecation'] },
      headers: { authorization: `Bearer ${sandbox.key}`, 'x-trace': 'yes' },
    });
    expect(recorded?.time).toBeGreaterThan(Date.now() - 60_000);
    sandbox.clearRequests();
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('connections', () => {
  function getOnce(
    target: Sandbox,
    agent: Agent,
    path: string,
  ): Promise<{ response: IncomingMessage; reused: boolean; socket: Socket }> {
    return new Promise((resolve, reject) => {
      const headers = { authorization: `Bearer ${target.key}` };
      const request = httpGet(`${target.url}${path}`, { agent, headers }, (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ response, reused: request.reusedSocket, socket: request.socket! }),
        );
      });
      request.on('error', reject);
    });
  }

  it('accepts an absolute-form request target, as some proxies send it', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const { hostname, port } = new URL(sandbox.url);
      const request = httpGet(
        {
          hostname,
          port,
          path: `${sandbox.url}/api/v1/models`,
          headers: { authorization: `Bearer ${sandbox.key}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on('error', reject);
    });
    expect(status).toBe(200);
  });

  it('keeps a connection alive across requests, and close() ends it and resolves', async () => {
    const own = await startSandbox();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await getOnce(own, agent, '/api/v1/models');
      const second = await getOnce(own, agent, '/api/v1/changes');
      expect(first.response.headers.connection).toBe('keep-alive');
      expect(second.reused).toBe(true);
      const { socket } = second;
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      // The test's own timeout bounds both: a close held by the idle connection would hang.
      await own.close();
      await ended;
      expect(socket.destroyed).toBe(true);
    } finally {
      agent.destroy();
      await own.close();
    }
  });
});
