/**
 * `--source public` as users run it: the built CLI over stdio with a real MCP client, and `call`,
 * against a stub of the aggregator's catalog on a loopback port. Each test checks what the tools
 * answered and what went out to the origin. Ids, prices and dates follow the aggregator's public
 * catalog (see test/public/catalog-fixtures.ts).
 */

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, type ListingFacts, listing, T0 } from '../public/catalog-fixtures.js';
import {
  deprecationRecord,
  deprecationsAnswer,
  modelsDevAnswer,
  o3Record,
  repo,
} from '../public/origin-fixtures.js';
import { type StubOrigin, startStubOrigin } from '../support/stub-origin.js';
import { tempFolder } from '../support/temp.js';
import { connectCli, resultText, run, scrubbedEnv } from './harness.js';
import { publicEnv as sharedPublicEnv } from './public-support.js';

const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);

/** Registered long ago (baseline), and two weeks ago (a new model on the first look). */
const CATALOG: ListingFacts[] = [
  {
    id: 'openai/gpt-5',
    name: 'OpenAI: GPT-5',
    prompt: '0.00000125',
    completion: '0.00001',
    created: now - 200 * DAY,
  },
  {
    id: 'openai/gpt-5:free',
    name: 'OpenAI: GPT-5 (free)',
    prompt: '0',
    completion: '0',
    created: now - 200 * DAY,
  },
  {
    id: 'qwen/qwen3-coder',
    name: 'Qwen: Qwen3 Coder',
    prompt: '0.00000022',
    completion: '0.00000095',
    created: now - 100 * DAY,
    hf: 'Qwen/Qwen3-Coder-480B-A35B-Instruct',
  },
  {
    id: 'moonshotai/kimi-k3',
    name: 'MoonshotAI: Kimi K3',
    prompt: '0.0000006',
    completion: '0.0000025',
    created: now - 14 * DAY,
  },
];

function catalogAnswer(models: ListingFacts[]) {
  return answer(models.map(listing));
}

let origin: StubOrigin;
beforeAll(async () => {
  origin = await startStubOrigin();
});
afterAll(() => origin.close());

const publicEnv = (stateHome: string, extra: Record<string, string> = {}) =>
  sharedPublicEnv(origin, stateHome, extra);

function structured(result: CallToolResult): Record<string, unknown> {
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

describe('--source public', () => {
  it('answers the three tools from the catalog, with no key, and says where the data came from', async () => {
    origin.serve('/models', catalogAnswer(CATALOG));
    const stateHome = tempFolder('mf-public-state-');
    const before = origin.requests.length;
    const session = await connectCli(publicEnv(stateHome));
    try {
      const search = await session.call('search_models', { vendor: 'openai' });
      expect(search.isError, resultText(search)).toBeFalsy();
      const items = structured(search).items as { id: string; pricing: Record<string, number> }[];
      expect(items.map((item) => item.id).sort()).toEqual(['openai/gpt-5', 'openai/gpt-5:free']);
      expect(items.find((item) => item.id === 'openai/gpt-5')?.pricing).toEqual({
        inputPerMillion: 1.25,
        outputPerMillion: 10,
      });
      const dataSource = structured(search).dataSource as Record<string, unknown>;
      expect(dataSource).toMatchObject({
        kind: 'public',
        origins: [
          { name: 'openrouter', url: origin.url, status: 'ok' },
          { name: 'models.dev', url: null, status: 'off' },
          { name: 'huggingface', url: null, status: 'off' },
          { name: 'modeldeprecations.dev', url: null, status: 'off' },
        ],
      });
      expect(Date.parse(String(dataSource.snapshotAt)) / 1000).toBeGreaterThanOrEqual(now - 1);

      const changes = await session.call('list_model_changes', { since: 0 });
      const events = structured(changes).items as {
        eventType: string;
        afterValue: string;
        verificationStatus: string;
      }[];
      // The first look: the model registered within 30 days is new; the older ones are the baseline.
      expect(events.map((event) => [event.eventType, event.afterValue])).toEqual([
        ['new_model', 'moonshotai/kimi-k3'],
      ]);
      expect(events[0]?.verificationStatus).toBe('pending');

      const model = await session.call('get_model', { id: 'Qwen/Qwen3-Coder-480B-A35B-Instruct' });
      expect(structured(model)).toMatchObject({
        catalogStatus: 'listed',
        matchedBy: 'huggingfaceId',
        model: { id: 'qwen/qwen3-coder', contextLength: 131072 },
        priceHistory: { points: [{ inputPrice: 0.22, outputPrice: 0.95 }] },
      });
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
    // One fetch for the whole session (the snapshot is fresh for an hour), with our user agent and no key.
    const sent = origin.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/api/v1/models']);
    expect(sent[0]?.headers['user-agent']).toMatch(/^model-feed-mcp\//);
    expect(sent[0]?.headers.authorization).toBeUndefined();
    // The record is the user's alone.
    const store = join(stateHome, 'model-feed-mcp', 'public');
    expect(statSync(store).mode & 0o777).toBe(0o700);
  });

  it('derives the feed from consecutive snapshots, and a poller that sends back latest misses nothing', async () => {
    const stateHome = tempFolder('mf-public-state-');
    origin.serve('/models', catalogAnswer(CATALOG));
    const session = await connectCli(publicEnv(stateHome, { MODEL_FEED_REFRESH_S: '0' }));
    try {
      const first = await session.call('list_model_changes', { since: 0 });
      const latest = structured(first).latest as number;
      expect(latest).toBeGreaterThan(0);

      // The price of GPT-5 moves, then a new model appears: each fetch is diffed with the one before.
      const cheaper = CATALOG.map((model) =>
        model.id === 'openai/gpt-5' ? { ...model, prompt: '0.000001' } : model,
      );
      origin.serve('/models', catalogAnswer(cheaper));
      const afterPrice = await session.call('list_model_changes', { since: latest });
      const priceEvents = structured(afterPrice).items as {
        eventType: string;
        beforeValue: string;
        afterValue: string;
      }[];
      expect(priceEvents).toMatchObject([
        {
          eventType: 'price_change',
          beforeValue: 'in $1.25 / out $10 per 1M tokens',
          afterValue: 'in $1 / out $10 per 1M tokens',
        },
      ]);
      const latest2 = structured(afterPrice).latest as number;
      expect(latest2).toBeGreaterThan(latest);

      const withNew = [...cheaper, { id: 'z-ai/glm-5', name: 'Z.AI: GLM 5', created: now - DAY }];
      origin.serve('/models', catalogAnswer(withNew));
      const afterNew = await session.call('list_model_changes', { since: latest2 });
      expect(
        (structured(afterNew).items as { afterValue: string }[]).map((event) => event.afterValue),
      ).toEqual(['z-ai/glm-5']);
      // Nothing twice: the same cursor again, after another fetch that changed nothing, is empty.
      const again = await session.call('list_model_changes', {
        since: structured(afterNew).latest as number,
      });
      expect(structured(again).items).toEqual([]);

      const history = await session.call('get_model', { id: 'openai/gpt-5' });
      expect((structured(history).priceHistory as { points: unknown[] }).points).toMatchObject([
        { inputPrice: 1.25, outputPrice: 10 },
        { inputPrice: 1, outputPrice: 10 },
      ]);
    } finally {
      await session.close();
    }
  });

  it('answers from the record, marked stale, when the origin fails; with no record, says what to do', async () => {
    const stateHome = tempFolder('mf-public-state-');
    origin.serve('/models', catalogAnswer(CATALOG));
    const env = publicEnv(stateHome, { MODEL_FEED_REFRESH_S: '0' });
    const first = await run(['call', 'search_models', '--json'], env);
    expect(first.code, first.stderr).toBe(0);

    origin.fail(503);
    const stale = await run(['call', 'search_models', '--vendor', 'qwen', '--json'], env);
    expect(stale.code, stale.stderr).toBe(0);
    const body = JSON.parse(stale.stdout) as Record<string, unknown>;
    expect((body.items as { id: string }[]).map((item) => item.id)).toEqual(['qwen/qwen3-coder']);
    expect(body.dataSource).toMatchObject({
      kind: 'public',
      stale: { reason: expect.stringContaining('503') },
    });

    const empty = await run(['call', 'search_models'], publicEnv(tempFolder('mf-public-state-')));
    expect(empty.code).toBe(1);
    expect(empty.stderr + empty.stdout).toContain('MODEL_FEED_OPENROUTER_URL');
    expect(empty.stderr + empty.stdout).toContain('503');
  });

  it('shares one record between processes: a second process within the refresh age asks nothing', async () => {
    const stateHome = tempFolder('mf-public-state-');
    origin.serve('/models', catalogAnswer(CATALOG));
    const before = origin.requests.length;
    const one = await run(['call', 'search_models'], publicEnv(stateHome));
    const two = await run(['call', 'list_model_changes'], publicEnv(stateHome));
    expect([one.code, two.code], one.stderr + two.stderr).toEqual([0, 0]);
    expect(origin.requests.length - before).toBe(1);
    expect(two.stdout).toContain('moonshotai/kimi-k3');
    expect(readdirSync(join(stateHome, 'model-feed-mcp', 'public'))).toHaveLength(1);
  });

  it('draws on every origin: an official deprecation, an upload by the vendor, open weights', async () => {
    const stateHome = tempFolder('mf-public-state-');
    const withO3 = [...CATALOG, { id: 'openai/o3', name: 'OpenAI: o3', created: now - 300 * DAY }];
    origin.serve('/models', catalogAnswer(withO3));
    origin.serve(
      '//models-dev/api.json',
      modelsDevAnswer({ openrouter: [{ id: 'moonshotai/kimi-k3', open: true }] }),
    );
    origin.serve('//deprecations/api/v1/models.json', deprecationsAnswer([deprecationRecord(o3Record)]));
    // An upload by the organisation the catalog links Qwen3 Coder to, three days ago.
    // The fixture counts days before T0; three days before now is that many more.
    const createdDaysAgo = (T0 - now) / DAY + 3;
    origin.serve('//hf/api/models?author=Qwen&sort=createdAt&direction=-1&limit=50', [
      repo({ id: 'Qwen/Qwen3.9-32B', createdDaysAgo, likes: 40 }),
    ]);
    const env = publicEnv(stateHome, {
      MODEL_FEED_MODELS_DEV_URL: `${origin.root}/models-dev`,
      MODEL_FEED_HUGGINGFACE_URL: `${origin.root}/hf`,
      MODEL_FEED_DEPRECATIONS_URL: `${origin.root}/deprecations`,
    });
    const changes = await run(['call', 'list_model_changes', '--since', '0', '--json'], env);
    expect(changes.code, changes.stderr).toBe(0);
    const items = (JSON.parse(changes.stdout) as { items: Record<string, unknown>[] }).items;
    expect(items.map((event) => [event.eventType, event.verificationStatus])).toEqual(
      expect.arrayContaining([
        ['new_model', 'pending'],
        ['deprecation', 'official'],
        ['open_source_surge', 'official'],
      ]),
    );
    const o3 = items.find((event) => event.eventType === 'deprecation');
    expect(o3).toMatchObject({
      sourceUrl: 'https://developers.openai.com/api/docs/deprecations',
      catalogId: 'openai/o3',
    });

    const kimi = await run(['call', 'get_model', 'moonshotai/kimi-k3', '--json'], env);
    expect(JSON.parse(kimi.stdout)).toMatchObject({ model: { type: 'open_source' } });
    const sources = (JSON.parse(kimi.stdout) as { dataSource: { origins: { status: string }[] } }).dataSource;
    expect(sources.origins.map((entry) => entry.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const asked = origin.requests.map((request) => request.path);
    expect(asked).toEqual(
      expect.arrayContaining(['/models-dev/api.json', '/deprecations/api/v1/models.json']),
    );
  });

  it('bounds a refresh: an origin that never answers is left out of the snapshot, and the call answers', async () => {
    origin.serve('/models', catalogAnswer(CATALOG));
    origin.hang('//stalled/api.json');
    const env = publicEnv(tempFolder('mf-public-state-'), {
      MODEL_FEED_MODELS_DEV_URL: `${origin.root}/stalled`,
      MODEL_FEED_TIMEOUT_MS: '400',
    });
    const result = await run(['call', 'search_models', '--vendor', 'openai', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as {
      items: unknown[];
      dataSource: { origins: { name: string; status: string }[] };
    };
    expect(body.items).toHaveLength(2);
    expect(body.dataSource.origins.find((entry) => entry.name === 'models.dev')?.status).toMatch(
      /^127\.0\.0\.1:\d+ did not answer within 400 ms$/,
    );
  });

  it('refuses a plain http origin off this machine and --sandbox beside --source public', async () => {
    const badUrl = await run(
      ['call', 'search_models'],
      publicEnv(tempFolder('mf-public-state-'), {
        MODEL_FEED_OPENROUTER_URL: 'http://mirror.example.com/api/v1',
      }),
    );
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('MODEL_FEED_OPENROUTER_URL must be an https:// URL');
    const off = await run(
      ['call', 'search_models'],
      publicEnv(tempFolder('mf-public-state-'), {
        MODEL_FEED_OPENROUTER_URL: 'off',
      }),
    );
    expect(off.code).toBe(1);
    expect(off.stdout + off.stderr).toContain(
      "Nothing is recorded on this machine from the aggregator's public catalog (openrouter.ai), and it is turned off (MODEL_FEED_OPENROUTER_URL=off)",
    );
    // A service-mode run is not stopped by a stray public setting it does not read.
    const stray = await run(
      ['call', 'search_models', '--sandbox'],
      scrubbedEnv({ MODEL_FEED_OPENROUTER_URL: 'garbage' }),
    );
    expect(stray.code, stray.stderr).toBe(0);
    const both = await run(['call', 'search_models', '--sandbox', '--source', 'public'], scrubbedEnv());
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--sandbox is --source sample');
  });
});
