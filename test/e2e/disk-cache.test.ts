/**
 * One cache for every process of the user, and answers when the service is down: runner processes
 * one after another, sharing an XDG_CACHE_HOME, against the sandbox behind a switchable front.
 */

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { connectCli, resultText, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const cacheHome = () => tempFolder('mf-shared-cache-');
const modelReads = () => sandbox.requests.filter((r) => r.path === '/api/v1/models').length;

function env(home: string, key = sandbox.key, url = sandbox.url, extra: Record<string, string> = {}) {
  return scrubbedEnv({ MODEL_FEED_API_KEY: key, MODEL_FEED_BASE_URL: url, XDG_CACHE_HOME: home, ...extra });
}

describe('the disk cache', () => {
  it('a second process within the TTL makes no request; another key or service never shares', async () => {
    const home = cacheHome();
    const before = modelReads();
    const first = await run(['call', 'search_models', '--vendor', 'openai'], env(home));
    expect(first.code, first.stderr).toBe(0);
    expect(modelReads()).toBe(before + 1);
    const second = await run(['call', 'search_models', '--vendor', 'openai'], env(home));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(modelReads()).toBe(before + 1);

    // Another key of the same service: its own entry.
    const otherKey = 'mfsk_other_key_0123456789abcdef';
    sandbox.addKey(otherKey, 'pro');
    await run(['call', 'search_models', '--vendor', 'openai'], env(home, otherKey));
    expect(modelReads()).toBe(before + 2);
    // The same key on another service: its own entry.
    const other = await startSandbox({ key: sandbox.key, tier: 'pro' });
    try {
      await run(['call', 'search_models', '--vendor', 'openai'], env(home, sandbox.key, other.url));
      expect(other.requests.filter((r) => r.path === '/api/v1/models')).toHaveLength(1);
    } finally {
      await other.close();
    }

    const folder = join(home, 'model-feed-mcp');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(folder)) {
      expect(name).not.toContain(sandbox.key);
      expect(name).not.toContain(otherKey);
      expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
      const text = readFileSync(join(folder, name), 'utf8');
      expect(text).not.toContain(sandbox.key);
      expect(text).not.toContain(otherKey);
    }
  });

  it('a corrupt cache file is replaced without an error', async () => {
    const home = cacheHome();
    await run(['call', 'search_models', '--vendor', 'meta-llama'], env(home));
    const folder = join(home, 'model-feed-mcp');
    for (const name of readdirSync(folder)) writeFileSync(join(folder, name), '{"v":1,"key":');
    const before = modelReads();
    const again = await run(['call', 'search_models', '--vendor', 'meta-llama'], env(home));
    expect(again.code, again.stderr).toBe(0);
    expect(modelReads()).toBe(before + 1);
    for (const name of readdirSync(folder))
      expect(() => JSON.parse(readFileSync(join(folder, name), 'utf8'))).not.toThrow();
  });

  it('an entry whose bytes were changed, still valid JSON, is not served: the service is asked again', async () => {
    const home = cacheHome();
    const first = await run(['call', 'search_models', '--vendor', 'openai', '--limit', '1'], env(home));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('in $5 /');
    const folder = join(home, 'model-feed-mcp');
    let changed = 0;
    for (const name of readdirSync(folder)) {
      const text = readFileSync(join(folder, name), 'utf8');
      const edited = text.replace('"inputPerMillion":5,', '"inputPerMillion":0.05,');
      if (edited !== text) changed++;
      writeFileSync(join(folder, name), edited);
    }
    expect(changed).toBe(1);
    const before = modelReads();
    const again = await run(['call', 'search_models', '--vendor', 'openai', '--limit', '1'], env(home));
    expect(again.code, again.stderr).toBe(0);
    expect(modelReads()).toBe(before + 1);
    expect(again.stdout).toBe(first.stdout);
  });

  it('--no-disk-cache and MODEL_FEED_DISK_CACHE=0 turn it off', async () => {
    const home = cacheHome();
    await run(['call', 'search_models', '--no-disk-cache'], env(home));
    await run(['call', 'search_models'], env(home, sandbox.key, sandbox.url, { MODEL_FEED_DISK_CACHE: '0' }));
    expect(() => readdirSync(join(home, 'model-feed-mcp'))).toThrow();
  });
});

/** The sandbox behind a front that can answer 503 or 429 instead, or stop listening. */
async function front(target: string) {
  const state = { mode: 'pass' as 'pass' | '503' | '429', requests: 0 };
  const server: Server = createServer((req, res) => {
    // The idle warm-up only opens a connection (no key, nothing counted): not a request to the API.
    if (req.method === 'OPTIONS' && !req.headers.authorization) {
      res.writeHead(204).end();
      return;
    }
    state.requests++;
    if (state.mode === '503') {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
      return;
    }
    if (state.mode === '429') {
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'retry-after': '3600',
          'x-ratelimit-limit': '1000',
          'x-ratelimit-remaining': '0',
          'x-service-tier': 'free',
        })
        .end('{"error":"Daily limit of 1000 calls reached (free tier)."}');
      return;
    }
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('answers when the service is down', () => {
  it('answers from the cached copy on 503, 429 and refused, says so, and never for the feed', async () => {
    const home = cacheHome();
    const gate = await front(sandbox.url);
    const settings = env(home, sandbox.key, gate.url, { MODEL_FEED_CACHE_TTL_S: '1' });
    try {
      const fill = await connectCli(settings);
      expect((await fill.call('search_models', { vendor: 'openai' })).isError).toBeFalsy();
      expect((await fill.call('get_model', { id: 'openai/gpt-4o' })).isError).toBeFalsy();
      await fill.close();
      await new Promise((r) => setTimeout(r, 1100));

      gate.state.mode = '503';
      const down = await connectCli(settings);
      const search = await down.call('search_models', { vendor: 'openai' });
      expect(search.isError).toBeFalsy();
      expect(resultText(search).split('\n')[0]).toMatch(
        /^From the local cache, \d+ s old: the service answered HTTP 503\.$/,
      );
      expect(search._meta?.['modelFeed/stale']).toMatchObject({ reason: 'the service answered HTTP 503' });
      const feed = await down.call('list_model_changes', {});
      expect(feed.isError).toBe(true);
      expect(resultText(feed)).toContain('The change feed needs the service');
      await down.close();

      gate.state.mode = '429';
      const limited = await connectCli(settings);
      const model = await limited.call('get_model', { id: 'openai/gpt-4o' });
      expect(model.isError).toBeFalsy();
      expect(resultText(model)).toMatch(
        /^From the local cache, \d+ s old: the daily limit is reached, calls resume at /,
      );
      expect((model.structuredContent as { catalogStatus: string }).catalogStatus).toBe('listed');
      await limited.close();

      // The 429 is shared: a new process asks nothing before retry-after, and still answers.
      const asked = gate.state.requests;
      const next = await connectCli(settings);
      const again = await next.call('search_models', { vendor: 'openai' });
      expect(resultText(again)).toContain('the daily limit is reached');
      expect((await next.call('list_model_changes', {})).isError).toBe(true);
      expect(gate.state.requests).toBe(asked);
      await next.close();
    } finally {
      await gate.close();
    }

    // Nothing listening: refused. A new home: no 429 remembered, but the same copies.
    const refused = await connectCli({ ...settings });
    const answer = await refused.call('search_models', { vendor: 'openai' });
    expect(answer.isError).toBeFalsy();
    expect(resultText(answer)).toMatch(/^From the local cache, \d+ s old: /);
    await refused.close();
  });

  it('a copy older than --stale-max-age is not used', async () => {
    const home = cacheHome();
    const gate = await front(sandbox.url);
    const settings = env(home, sandbox.key, gate.url, { MODEL_FEED_CACHE_TTL_S: '1' });
    try {
      expect((await run(['call', 'search_models'], settings)).code).toBe(0);
      await new Promise((r) => setTimeout(r, 2100));
      gate.state.mode = '503';
      const old = await run(['call', 'search_models', '--stale-max-age', '1'], settings);
      expect(old.code).toBe(1);
      expect(old.stderr).toContain('503');
    } finally {
      await gate.close();
    }
  });
});
