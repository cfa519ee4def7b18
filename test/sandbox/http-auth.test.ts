import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxApp } from '../../src/sandbox/app.js';
import { buildDataset } from '../../src/sandbox/dataset.js';
import { hashKey } from '../../src/sandbox/keys.js';
import { serveMcpEndpoint } from '../../src/sandbox/mcp-endpoint.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { call, type ErrorBody, rateLimitHeaders } from './http-helpers.js';

const NOON = Date.UTC(2026, 6, 1, 12, 0, 0);
let clock = NOON;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock });
});

afterAll(async () => {
  await sandbox.close();
});

describe('401', () => {
  it.each([
    ['no Authorization header', null, /Missing Authorization header/],
    ['a wrong key', 'mfsk_wrong', /wrong or has been revoked/],
  ])('%s → 401 with an Error body that says so, and no rate-limit headers', async (_, key, message) => {
    const answer = await call<ErrorBody>(sandbox, '/api/v1/changes', { key });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatch(message);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(rateLimitHeaders(answer.headers)).toEqual({ limit: null, remaining: null, tier: null });
  });

  it('a header that is not "Bearer <key>" → 401 saying it is malformed', async () => {
    const answer = await call<ErrorBody>(sandbox, '/api/v1/models', {
      key: null,
      headers: { authorization: `Basic ${sandbox.key}` },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatch(/Malformed Authorization header/);
  });

  it('a revoked key → 401; unknown paths answer 401 too before 404', async () => {
    sandbox.addKey('mfsk_to_revoke', 'pro');
    expect((await call(sandbox, '/api/v1/models', { key: 'mfsk_to_revoke' })).status).toBe(200);
    sandbox.revokeKey('mfsk_to_revoke');
    const answer = await call<ErrorBody>(sandbox, '/api/v1/models', { key: 'mfsk_to_revoke' });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatch(/revoked/);
    expect((await call(sandbox, '/nowhere', { key: 'mfsk_to_revoke' })).status).toBe(401);
  });
});

describe('daily limit', () => {
  it('sends the three rate-limit headers on every authenticated answer', async () => {
    sandbox.addKey('mfsk_headers', 'free');
    const statuses: number[] = [];
    for (const path of ['/api/v1/models', '/api/v1/changes?limit=0', '/api/v1/models/x/history', '/nope']) {
      const answer = await call(sandbox, path, { key: 'mfsk_headers' });
      statuses.push(answer.status);
      expect(rateLimitHeaders(answer.headers)).toEqual({
        limit: '1000',
        remaining: String(1000 - statuses.length),
        tier: 'free',
      });
    }
    expect(statuses).toEqual([200, 400, 404, 404]);
  });

  it('answers call 1001 of a free key with 429 and retry-after until 00:00 UTC, then resets', async () => {
    clock = NOON;
    sandbox.addKey('mfsk_busy', 'free');
    for (let count = 1; count <= 1000; count++) {
      const answer = await call(sandbox, '/api/v1/changes?limit=1', { key: 'mfsk_busy' });
      if (answer.status !== 200) throw new Error(`call ${count} answered ${answer.status}`);
    }
    clock = Date.UTC(2026, 6, 1, 23, 0, 0, 500);
    const refused = await call<ErrorBody>(sandbox, '/api/v1/changes', { key: 'mfsk_busy' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/Daily limit of 1000 calls reached \(free tier\)/);
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect(rateLimitHeaders(refused.headers)).toEqual({ limit: '1000', remaining: '0', tier: 'free' });
    expect((await call(sandbox, '/api/v1/models', { key: sandbox.key })).status).toBe(200);

    clock = Date.UTC(2026, 6, 2, 0, 0, 0);
    const nextDay = await call(sandbox, '/api/v1/changes', { key: 'mfsk_busy' });
    expect(nextDay.status).toBe(200);
    expect(rateLimitHeaders(nextDay.headers).remaining).toBe('999');
    clock = NOON;
  });
});

describe('key storage', () => {
  it('keeps only SHA-256 hashes of the keys it accepts', async () => {
    const app = createSandboxApp({ dataset: buildDataset(loadBundledData()), now: () => NOON });
    app.keys.add('mfsk_plain_secret', 'free');
    app.keys.add('mfsk_revoked_secret', 'pro');
    app.keys.revoke('mfsk_revoked_secret');
    const server = createServer(app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/models`, {
        headers: { authorization: 'Bearer mfsk_plain_secret' },
      });
      expect(response.status).toBe(200);
      app.clearRequests();
      const structure = inspect(app.keys, { depth: Number.POSITIVE_INFINITY, showHidden: true });
      expect(structure).toContain(hashKey('mfsk_plain_secret'));
      expect(structure).toContain(hashKey('mfsk_revoked_secret'));
      expect(structure).not.toMatch(/mfsk_/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('POST /api/mcp', () => {
  it('serves the tool endpoint it is given (mcp-endpoint.ts), after auth and counting', async () => {
    const withMcp = await startSandbox({ mcp: serveMcpEndpoint });
    try {
      const response = await fetch(`${withMcp.url}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${withMcp.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(200);
      expect(rateLimitHeaders(response.headers).tier).toBe('free');
      const body = (await response.json()) as { result: { tools: { name: string }[] } };
      expect(body.result.tools.map((t) => t.name)).toEqual([
        'list_model_changes',
        'get_model',
        'search_models',
      ]);
      expect((await call(withMcp, '/api/mcp', { method: 'POST', key: 'mfsk_wrong' })).status).toBe(401);
      expect((await call(withMcp, '/api/mcp')).status).toBe(405);
    } finally {
      await withMcp.close();
    }
  });

  it('without a handler: 404 that names the endpoint, after auth and counting', async () => {
    const answer = await call<ErrorBody>(sandbox, '/api/mcp', { method: 'POST' });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('The tool endpoint /api/mcp is not enabled in this sandbox.');
    expect(rateLimitHeaders(answer.headers).tier).toBe('free');
    expect((await call(sandbox, '/api/mcp', { method: 'POST', key: 'mfsk_wrong' })).status).toBe(401);
  });

  it('hands an authenticated request to the injected handler, with the key, its base URL and the rate-limit headers', async () => {
    const seen: string[][] = [];
    const withMcp = await startSandbox({
      key: 'mfsk_mcp',
      mcp: async (req, res, key, baseUrl) => {
        seen.push([key, baseUrl]);
        let body = '';
        for await (const chunk of req) body += String(chunk);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echo: JSON.parse(body) } }));
      },
    });
    try {
      const response = await fetch(`${withMcp.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: 'Bearer mfsk_mcp', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(200);
      expect(rateLimitHeaders(response.headers)).toEqual({ limit: '1000', remaining: '999', tier: 'free' });
      expect(await response.json()).toMatchObject({ result: { echo: { method: 'tools/list' } } });
      expect(seen).toEqual([['mfsk_mcp', withMcp.url]]);
      const refused = await call(withMcp, '/api/mcp', { method: 'POST', key: 'mfsk_other' });
      expect(refused.status).toBe(401);
      expect(seen).toHaveLength(1);
    } finally {
      await withMcp.close();
    }
  });

  it('answers 500 with an Error body when the handler throws before answering', async () => {
    const warnings: string[] = [];
    const failing = await startSandbox({
      mcp: async () => {
        throw new Error('boom');
      },
      log: (level, message) => {
        if (level === 'warn') warnings.push(message);
      },
    });
    try {
      const answer = await call<ErrorBody>(failing, '/api/mcp', { method: 'POST' });
      expect(answer.status).toBe(500);
      expect(answer.body.error).toMatch(/tool endpoint failed/);
      expect(warnings).toEqual(['POST /api/mcp failed: boom']);
    } finally {
      await failing.close();
    }
  });
});
