/**
 * What `watch` sends to the service and keeps of what it gets back, end to end: the filters in the
 * request, the change event passed through untouched, and the default state file per feed.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { envelopes, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

/**
 * A feed of one change, served as the exact bytes given: the first page from `since=0`, nothing
 * after it.
 */
async function oneChangeFeed(itemJson: string): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const since = new URL(req.url ?? '/', 'http://x').searchParams.get('since');
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      'x-service-tier': 'pro',
    });
    res.end(
      since === '0'
        ? `{"items":[${itemJson}],"nextCursor":null,"latest":1782856045}`
        : '{"items":[],"nextCursor":null,"latest":null}',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('the envelope', () => {
  it('carries the change event exactly as the service sent it: unknown fields and odd values kept', async () => {
    // Fields the runner does not know, values its schema does not expect (a string for a boolean,
    // a number for a string, an unknown event type), nesting, key order, and text beyond ASCII.
    const sent = JSON.stringify({
      zeta: 'first key, out of order',
      id: 'evt-odd-1',
      eventType: 'price_drop_v2',
      title: 'Prix réduit — 50 % ✓ 🚀 "quoted" \\ back',
      summary: 42,
      beforeValue: null,
      afterValue: '',
      official: 'yes',
      detectedAt: '2026-06-30T10:00:00Z',
      model: { slug: 'acme', name: null, tags: ['a', 'b'], extra: { depth: { deeper: [1, 2.5, -0, 1e21] } } },
      confidence: 0.1,
      huge: 9007199254740991,
      empty: {},
      list: [],
      flag: false,
    });
    const feed = await oneChangeFeed(sent);
    try {
      const run = await runWatch(
        ['--once', '--since', '0', '--state', join(tempDir(), 's.json')],
        watchEnv({ url: feed.url, key: 'mfsk_test_key_123456' }),
      );
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      const line = lines[0] as string;
      // `data` is the envelope's last member: its text is the service's JSON, byte for byte.
      const marker = ',"data":';
      expect(line.slice(line.indexOf(marker) + marker.length, -1)).toBe(sent);
      expect(JSON.parse(line).data).toEqual(JSON.parse(sent));
    } finally {
      feed.close();
    }
  });
});

describe('the feed filters', () => {
  it('--model reaches the service as the model parameter, with --type beside it', async () => {
    sandbox.clearRequests();
    const run = await runWatch(
      ['--once', '--since', '0', '--model', 'openai', '--state', join(tempDir(), 's.json')],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    const delivered = envelopes(run.stdout);
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((e) => (e.data.model as { slug: string }).slug === 'openai')).toBe(true);
    const request = sandbox.requests.find((r) => r.path === '/api/v1/changes');
    expect(request?.query).toMatchObject({ since: '0', model: 'openai' });
    expect(request?.query.type).toBeUndefined();

    sandbox.clearRequests();
    const both = await runWatch(
      ['--once', '--since', '0', '--model', 'openai', '--type', 'price_change'],
      watchEnv(sandbox, { XDG_STATE_HOME: tempDir() }),
    );
    expect(both.code, both.stderr).toBe(0);
    const filtered = sandbox.requests.find((r) => r.path === '/api/v1/changes');
    expect(filtered?.query).toMatchObject({ model: 'openai', type: 'price_change' });
  });
});

describe('the default state file', () => {
  it('is one file per filter set in $XDG_STATE_HOME/model-feed-mcp, reused by the same set, without the key', async () => {
    const stateHome = tempDir();
    const folder = join(stateHome, 'model-feed-mcp');
    const env = watchEnv(sandbox, { XDG_STATE_HOME: stateHome });
    const stateFiles = () => readdirSync(folder).filter((name) => /^watch-[0-9a-f]{16}\.json$/.test(name));

    const all = await runWatch(['--once', '--since', '0'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(envelopes(all.stdout).length).toBeGreaterThan(0);
    expect(stateFiles()).toHaveLength(1);

    const prices = await runWatch(['--once', '--since', '0', '--type', 'price_change'], env);
    expect(prices.code, prices.stderr).toBe(0);
    expect(envelopes(prices.stdout).length).toBeGreaterThan(0);
    expect(stateFiles()).toHaveLength(2);

    // The same filter set finds its own cursor again: nothing is delivered twice, no third file.
    const again = await runWatch(['--once', '--since', '0'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(stateFiles()).toHaveLength(2);

    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of stateFiles()) {
      const text = readFileSync(join(folder, name), 'utf8');
      expect(text).not.toContain(sandbox.key);
      expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(text).service).toBe(sandbox.url);
    }
  });
});
