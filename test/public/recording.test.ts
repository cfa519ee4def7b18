/**
 * What one snapshot adds to the record (events, price points, the state), how the state survives
 * the disk, and how the catalog's pages are followed: pure, no network.
 */

import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/public/catalog-models.js';
import { fetchCatalog, MAX_CATALOG_PAGES, nextPage } from '../../src/public/fetch-catalog.js';
import { fetchOrigins } from '../../src/public/fetch-origins.js';
import { fromJson, type RecordedState, toJson } from '../../src/public/recorded-state.js';
import { snapshotCommit } from '../../src/public/snapshot-commit.js';
import { parseVendorDeprecations } from '../../src/public/vendor-deprecations.js';
import { answer, DAY, type ListingFacts, listing, snapshot, T0 } from './catalog-fixtures.js';
import { deprecationRecord, deprecationsAnswer, nanoRecord } from './origin-fixtures.js';

const at = (hours: number, models: ListingFacts[]) => ({ catalog: snapshot(hours, models) });
const poll = (takenAt: number) => ({ takenAt, origins: { openrouter: 'ok' } });

// Prices of 2026-08-20 (see catalog-fixtures.ts).
const FLASH: ListingFacts = {
  id: 'deepseek/deepseek-v4-flash',
  prompt: '0.0000000826',
  completion: '0.0000001652',
};
const GPT: ListingFacts = {
  id: 'openai/gpt-4o',
  name: 'OpenAI: GPT-4o',
  prompt: '0.0000025',
  completion: '0.00001',
};
const ALIAS: ListingFacts = { id: '~openai/gpt-latest', aliasTarget: 'openai/gpt-4o' };

describe('snapshotCommit', () => {
  it('records every listed price on the first snapshot, then only the prices that moved', () => {
    const first = snapshotCommit(null, at(0, [FLASH, GPT, ALIAS]), poll(T0));
    expect(first.commit.prices.map((point) => [point.id, point.inputPrice, point.outputPrice])).toEqual([
      ['deepseek/deepseek-v4-flash', 0.0826, 0.1652],
      ['openai/gpt-4o', 2.5, 10],
    ]);
    const second = snapshotCommit(
      first.state,
      at(6, [{ ...FLASH, prompt: '0.00000007' }, GPT, ALIAS]),
      poll(T0 + 6 * 3600),
    );
    expect(second.commit.prices).toEqual([
      { id: 'deepseek/deepseek-v4-flash', inputPrice: 0.07, outputPrice: 0.1652, observedAt: T0 + 6 * 3600 },
    ]);
    expect(second.commit.events.map((event) => event.eventType)).toEqual(['price_change']);
    const quiet = snapshotCommit(
      second.state,
      at(12, [{ ...FLASH, prompt: '0.00000007' }, GPT, ALIAS]),
      poll(T0 + 12 * 3600),
    );
    expect([quiet.commit.events, quiet.commit.prices]).toEqual([[], []]);
  });

  it('says when a change was found after a time nothing was watched, and the window it happened in', () => {
    const first = snapshotCommit(null, at(0, [FLASH, GPT]), poll(T0));
    const soon = snapshotCommit(
      first.state,
      at(6, [{ ...FLASH, prompt: '0.00000007' }, GPT]),
      poll(T0 + 6 * 3600),
    );
    expect(soon.commit.events[0]?.summary).not.toContain('unwatched');
    const late = snapshotCommit(
      first.state,
      at(24 * 7, [{ ...FLASH, prompt: '0.00000007' }, GPT]),
      poll(T0 + 7 * DAY),
    );
    expect(late.commit.events[0]?.summary).toBe(
      "deepseek/deepseek-v4-flash in the aggregator's catalog. Found by the first snapshot after 7 days unwatched: it happened between 2026-08-20T01:26:00Z and 2026-08-27T01:26:00Z.",
    );
  });

  it('does not announce the recent models again when a record that did not fit starts over', () => {
    const recent = { ...GPT, created: T0 - DAY };
    expect(snapshotCommit(null, at(0, [recent]), poll(T0)).commit.events).toHaveLength(1);
    expect(snapshotCommit(null, at(0, [recent]), poll(T0), false).commit.events).toEqual([]);
  });
});

describe('snapshotCommit with a vendor notice', () => {
  it('publishes one event when the vendor announces an end first and the catalog shows it later', () => {
    const parsed = parseVendorDeprecations(deprecationsAnswer([deprecationRecord(nanoRecord)]));
    if (!parsed.ok) throw new Error(parsed.reason);
    const nano: ListingFacts = { id: 'openai/gpt-4.1-nano', name: 'OpenAI: GPT-4.1 Nano' };
    const first = snapshotCommit(null, at(0, [nano, GPT]), poll(T0));
    const noticed = snapshotCommit(
      first.state,
      { ...at(6, [nano, GPT]), deprecations: parsed.list },
      poll(T0 + 6 * 3600),
    );
    expect(noticed.commit.events.map((event) => [event.eventType, event.verificationStatus])).toEqual([
      ['deprecation', 'official'],
    ]);
    const dated = snapshotCommit(
      noticed.state,
      { ...at(12, [{ ...nano, expiration: '2026-10-23' }, GPT]), deprecations: parsed.list },
      poll(T0 + 12 * 3600),
    );
    expect(dated.commit.events).toEqual([]);
  });
});

describe('the recorded state', () => {
  it('survives JSON, and a record that does not fit is not trusted', () => {
    const { state } = snapshotCommit(null, at(0, [FLASH, GPT, ALIAS]), poll(T0));
    const again = fromJson(JSON.parse(JSON.stringify(toJson(state)))) as RecordedState;
    expect(again).toEqual(state);
    expect(fromJson({ ...toJson(state), version: 2 })).toBeNull();
    expect(fromJson({ ...toJson(state), models: [{ id: 5 }] })).toBeNull();
    expect(fromJson('{}')).toBeNull();
  });
});

describe('buildCatalog', () => {
  it('lists models, not aliases, ranked by attention; an alias resolves to its target', () => {
    const first = snapshotCommit(null, at(0, [FLASH, GPT, ALIAS]), poll(T0));
    const catalog = buildCatalog(first.state, [], T0);
    expect(catalog.models.map((model) => model.id).sort()).toEqual([
      'deepseek/deepseek-v4-flash',
      'openai/gpt-4o',
    ]);
    expect(catalog.models.map((model) => model.attention.rank)).toEqual([1, 2]);
    expect(catalog.byId.get('~openai/gpt-latest')?.id).toBe('openai/gpt-4o');
    expect(catalog.byId.get('openai/gpt-4o')).toMatchObject({
      name: 'GPT-4o',
      displayName: 'OpenAI: GPT-4o',
      vendor: 'openai',
      pricing: { inputPerMillion: 2.5, outputPerMillion: 10 },
      url: 'https://openrouter.ai/openai/gpt-4o',
    });
  });
});

describe('the catalog pages', () => {
  const base = 'https://openrouter.ai/api/v1';

  it('follows links.next on the same origin and path only', () => {
    expect(nextPage({ links: { next: '/api/v1/models?offset=500&limit=500' } }, base)).toEqual({
      path: '/models',
      query: { offset: '500', limit: '500' },
    });
    expect(nextPage({ links: { next: null } }, base)).toBeUndefined();
    expect(nextPage({ links: { next: 'https://evil.example/api/v1/models' } }, base)).toMatch(/leaves/);
    expect(nextPage({ links: { next: '/other/models' } }, base)).toMatch(/leaves/);
  });

  it('joins every page, and stops at a bound when the pages do not end', async () => {
    const pages = new Map<string, unknown>([
      ['/models', { data: [listing(GPT)], links: { next: '/api/v1/models?offset=1' } }],
      ['/models?offset=1', answer([listing(FLASH)])],
    ]);
    const asked: string[] = [];
    const client = {
      getJson: async (path: string, query: Record<string, unknown>) => {
        const key = Object.keys(query).length
          ? `${path}?${new URLSearchParams(query as Record<string, string>)}`
          : path;
        asked.push(key);
        return { body: pages.get(key) ?? { data: [], links: { next: '/api/v1/models' } } };
      },
    };
    const parsed = await fetchCatalog(client, base, T0);
    expect(parsed.ok && [...parsed.snapshot.models.keys()]).toEqual([
      'openai/gpt-4o',
      'deepseek/deepseek-v4-flash',
    ]);
    pages.set('/models', { data: [], links: { next: '/api/v1/models' } });
    asked.length = 0;
    expect(await fetchCatalog(client, base, T0)).toEqual({
      ok: false,
      reason: `the catalog has more than ${MAX_CATALOG_PAGES} pages`,
    });
    expect(asked).toHaveLength(MAX_CATALOG_PAGES);
  });
});

describe('fetchOrigins', () => {
  /** A getter that answers the catalog, and holds every other request until its signal aborts. */
  const stalling = {
    getJson: (path: string, _query: Record<string, unknown>, signal?: AbortSignal) =>
      path === '/models'
        ? Promise.resolve({ body: answer([listing(GPT)]) })
        : new Promise<{ body: unknown }>((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(new Error('aborted'))),
          ),
  };

  it('bounds the whole fetch: what is not in by the deadline is absent, and named', async () => {
    const fetched = await fetchOrigins(
      { catalog: { client: stalling, baseUrl: 'https://openrouter.ai/api/v1' }, modelsDev: stalling },
      T0,
      () => 'failed',
      50,
    );
    expect(fetched.catalog.ok).toBe(true);
    expect(fetched.modelsDev).toBeUndefined();
    expect(fetched.statuses).toEqual({
      openrouter: 'ok',
      'models.dev': 'no complete answer within 50 ms',
      huggingface: 'off',
      'modeldeprecations.dev': 'off',
    });
  });

  it('a catalog that is not in by the deadline fails the fetch, with the same words', async () => {
    const fetched = await fetchOrigins(
      {
        catalog: {
          client: {
            getJson: (_path: string, query: Record<string, unknown>, signal?: AbortSignal) =>
              stalling.getJson('/stall', query, signal),
          },
          baseUrl: 'https://openrouter.ai/api/v1',
        },
      },
      T0,
      () => 'failed',
      50,
    );
    expect(fetched.catalog).toEqual({ ok: false, reason: 'no complete answer within 50 ms' });
  });
});
