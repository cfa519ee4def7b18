import { afterEach, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/api/schemas.js';
import { createSandboxApp, type SandboxApp } from '../../src/sandbox/app.js';
import { buildDataset, historySlug } from '../../src/sandbox/dataset.js';
import { initialLiveState, LIVE_KINDS, type LiveState, type Publication } from '../../src/sandbox/live.js';
import { generateChange } from '../../src/sandbox/live-changes.js';
import { applyPublication, publishBacklog } from '../../src/sandbox/live-publish.js';
import { parsePriceText } from '../../src/sandbox/prices.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import type { ChangeEvent } from '../../src/sandbox/types.js';
import { queryFeed } from '../../src/service-rules/feed-query.js';
import {
  call,
  expectChangeEvent,
  expectModel,
  expectPriceHistory,
  type FeedPageBody,
} from './http-helpers.js';

const { ChangesPage: ChangesPageSchema } = apiSchemas();

const dataset = buildDataset(loadBundledData());
const DATA_EVENTS = dataset.events.length;
// After the data set's newest event (2026-06-30) and snapshot (2026-07-01), as the wall clock is.
const NOW_MS = Date.parse('2026-11-23T12:00:00Z');
const NOW_S = NOW_MS / 1000;
const PRICE_TEXT = /^in \$\d+(\.\d+)? \/ out \$\d+(\.\d+)? per 1M tokens$/;

function generate(state: LiveState, sequence: number, kind?: (typeof LIVE_KINDS)[number]): Publication {
  return generateChange(dataset, state, { seed: 7, sequence, nowMs: NOW_MS, kind });
}

/** Publishes `count` drawn changes one by one, all in one second. */
function publishAll(count: number, seed = 7): { state: LiveState; events: ChangeEvent[]; kinds: string[] } {
  let state = initialLiveState(dataset);
  const events: ChangeEvent[] = [];
  const kinds: string[] = [];
  for (let sequence = 1; sequence <= count; sequence++) {
    const publication = generateChange(dataset, state, { seed, sequence, nowMs: NOW_MS });
    const published = applyPublication(state, publication, NOW_S);
    state = published.state;
    events.push(published.event);
    kinds.push(publication.kind);
  }
  return { state, events, kinds };
}

function expectConsistentCatalog(state: LiveState): void {
  expect(state.catalog.map((model) => model.attention.rank)).toEqual(
    state.catalog.map((_, index) => index + 1),
  );
  for (const model of state.catalog) {
    expectModel(model);
    const history = state.histories.get(historySlug(model.id));
    if (history === undefined) throw new Error(`no history for ${model.id}`);
    expectPriceHistory(history);
    const times = history.points.map((point) => point.observedAt);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(history.points.at(-1)).toMatchObject({
      inputPrice: model.pricing.inputPerMillion,
      outputPrice: model.pricing.outputPerMillion,
    });
  }
}

describe('generateChange (pure)', () => {
  const state = initialLiveState(dataset);

  it('a price change: a catalog model, its current price before, a plausible new price after', () => {
    for (let sequence = 1; sequence <= 50; sequence++) {
      const publication = generate(state, sequence, 'price_change');
      if (publication.kind !== 'price_change') throw new Error(`got ${publication.kind}`);
      const { event } = publication;
      expectChangeEvent(event);
      expect(event.beforeValue).toMatch(PRICE_TEXT);
      expect(event.afterValue).toMatch(PRICE_TEXT);
      expect(event.title).toMatch(/^.+ price (cut|increase): in \$.+ per 1M tokens → in \$.+ per 1M tokens$/);
      expect(event.title).toContain(event.model.name);
      const model = dataset.catalog.find((candidate) => candidate.name === event.model.name);
      expect(model?.vendor).toBe(event.model.slug);
      const before = parsePriceText(event.beforeValue);
      const after = parsePriceText(event.afterValue);
      expect(before).toEqual({
        inputPrice: model?.pricing.inputPerMillion,
        outputPrice: model?.pricing.outputPerMillion,
      });
      if (before === null || after === null) throw new Error('unreadable price text');
      expect(after).not.toEqual(before);
      // −10…−50% or +5…+20%, one price or both, all in one direction.
      const ratios = [
        (after.inputPrice ?? 0) / (before.inputPrice ?? 1),
        (after.outputPrice ?? 0) / (before.outputPrice ?? 1),
      ].filter((ratio) => ratio !== 1 && Number.isFinite(ratio));
      const cut = event.title.includes(' price cut: ');
      for (const ratio of ratios) {
        if (cut) expect(ratio).toBeGreaterThanOrEqual(0.45);
        if (cut) expect(ratio).toBeLessThan(1);
        else expect(ratio).toBeGreaterThan(1);
        if (!cut) expect(ratio).toBeLessThanOrEqual(1.3);
      }
      expect(event.detectedAt).toBe('2026-11-23T12:00:00Z');
      expect(event.summary).toContain('Synthetic');
      expect(publication.effect).toEqual({ type: 'price', modelId: model?.id, price: after });
    }
  });

  it('a verification: one of the pending events, to official or rejected', () => {
    const pending = new Set(
      dataset.events.filter((event) => event.verificationStatus === 'pending').map((event) => event.id),
    );
    const statuses = new Set<string>();
    for (let sequence = 1; sequence <= 40; sequence++) {
      const publication = generate(state, sequence, 'verification');
      if (publication.kind !== 'verification') throw new Error(`got ${publication.kind}`);
      expect(pending.has(publication.eventId)).toBe(true);
      statuses.add(publication.status);
    }
    expect([...statuses].sort()).toEqual(['official', 'rejected']);
  });

  it('a new model: the next version of a known vendor family, with a catalog id nobody has', () => {
    const taken = new Set([
      ...dataset.catalog.map((model) => model.id),
      ...dataset.events.map((event) => event.afterValue),
    ]);
    const vendors = new Set(dataset.events.map((event) => event.model.slug));
    for (let sequence = 1; sequence <= 40; sequence++) {
      const publication = generate(state, sequence, 'new_model');
      if (publication.kind !== 'new_model' || publication.effect.type !== 'listing') {
        throw new Error(`got ${publication.kind}`);
      }
      const { event } = publication;
      const { model } = publication.effect;
      expectChangeEvent(event);
      expect(event.title).toBe(`${model.name} added to the OpenRouter catalog`);
      expect(event.afterValue).toBe(model.id);
      expect(model.id).toMatch(/^[a-z0-9-]+\/[a-z0-9.-]+$/);
      expect(taken.has(model.id)).toBe(false);
      expect(vendors.has(event.model.slug)).toBe(true);
      expect(model.vendor).toBe(event.model.slug);
      expect(model.name).toMatch(/\d+\.\d+/);
      expect(['official', 'pending']).toContain(event.verificationStatus);
      if (event.official) expect(event.sourceUrl).toBe(`https://openrouter.ai/${model.id}`);
    }
  });

  it('bumps the newest version of a family: GPT-5.5 → GPT-5.6, Claude Opus 4.7 → 4.8', () => {
    const names = new Set<string>();
    for (let sequence = 1; sequence <= 200; sequence++) {
      const publication = generate(state, sequence, 'new_model');
      if (publication.kind === 'new_model' && publication.effect.type === 'listing') {
        names.add(`${publication.effect.model.id} ${publication.effect.model.name}`);
      }
    }
    expect(names).toContain('openai/gpt-5.6 GPT-5.6');
    expect(names).toContain('anthropic/claude-opus-4.8 Claude Opus 4.8');
    expect(names).toContain('deepseek/deepseek-v3.3 DeepSeek V3.3');
    expect(names).not.toContain('openai/gpt-4.2 GPT-4.2');
  });

  it('draws every kind, and is deterministic in seed, sequence, state and clock', () => {
    const kinds = new Set<string>();
    for (let sequence = 1; sequence <= 60; sequence++) kinds.add(generate(state, sequence).kind);
    expect([...kinds].sort()).toEqual([...LIVE_KINDS].sort());
    expect(generate(state, 5)).toEqual(generate(state, 5));
    expect(publishAll(30).events).toEqual(publishAll(30).events);
    expect(publishAll(30, 8).events).not.toEqual(publishAll(30).events);
  });

  it('falls back to a price change once no pending event is left', () => {
    let drained = state;
    for (const { event } of state.feed.filter((entry) => entry.event.verificationStatus === 'pending')) {
      drained = applyPublication(
        drained,
        { kind: 'verification', eventId: event.id, status: 'official' },
        NOW_S,
      ).state;
    }
    expect(drained.feed.some((entry) => entry.event.verificationStatus === 'pending')).toBe(false);
    expect(generate(drained, 1, 'verification').kind).toBe('price_change');
  });
});

describe('applyPublication', () => {
  it('gives every published change a unique id and a strictly increasing change time, all in one second', () => {
    const { state, events, kinds } = publishAll(300);
    const times = state.feed.map((entry) => entry.changeTime);
    for (let index = 1; index < times.length; index++) {
      expect(times[index]).toBeGreaterThan(times[index - 1] ?? Number.NEGATIVE_INFINITY);
    }
    // New events join the feed; a verification moves one that is there.
    const added = events.filter((_, index) => kinds[index] !== 'verification');
    expect(state.feed).toHaveLength(DATA_EVENTS + added.length);
    expect(new Set(state.feed.map((entry) => entry.event.id)).size).toBe(state.feed.length);
    expect(new Set(added.map((event) => event.id)).size).toBe(added.length);
    expect(added.length).toBeGreaterThan(150);
    // Each published change is the newest entry at its turn; the first one takes the current second.
    expect(state.feed.at(-1)?.changeTime).toBe(NOW_S + 299);
    for (const event of events) expectChangeEvent(event);
  });

  it('an official price change sets the model price and adds a history point at its change time', () => {
    const state = initialLiveState(dataset);
    let sequence = 1;
    let publication = generate(state, sequence, 'price_change');
    while (publication.kind !== 'price_change' || !publication.event.official) {
      publication = generate(state, ++sequence, 'price_change');
    }
    const { effect } = publication;
    if (effect.type !== 'price') throw new Error('not a price effect');
    const after = applyPublication(state, publication, NOW_S).state;
    const model = after.catalog.find((candidate) => candidate.id === effect.modelId);
    expect(model?.pricing).toEqual({
      inputPerMillion: effect.price.inputPrice,
      outputPerMillion: effect.price.outputPrice,
    });
    expect(after.histories.get(historySlug(effect.modelId))?.points.at(-1)).toEqual({
      ...effect.price,
      observedAt: after.feed.at(-1)?.changeTime,
    });
    // The data set's objects are left alone: another sandbox starts from them.
    expect(dataset.catalog.find((candidate) => candidate.id === effect.modelId)?.pricing).not.toEqual(
      model?.pricing,
    );
    expectConsistentCatalog(after);
  });

  it('a pending change waits: confirmed, it takes effect; rejected, it never does', () => {
    const state = initialLiveState(dataset);
    let sequence = 1;
    let publication = generate(state, sequence, 'new_model');
    while (publication.kind !== 'new_model' || publication.event.official) {
      publication = generate(state, ++sequence, 'new_model');
    }
    const { effect, event } = publication;
    if (effect.type !== 'listing') throw new Error('not a listing');
    const pending = applyPublication(state, publication, NOW_S).state;
    expect(pending.catalog.some((model) => model.id === effect.model.id)).toBe(false);
    expect(pending.deferred.get(event.id)).toEqual(effect);

    const confirm = { kind: 'verification', eventId: event.id, status: 'official' } as const;
    const confirmed = applyPublication(pending, confirm, NOW_S + 10);
    expect(confirmed.event).toEqual({ ...event, verificationStatus: 'official', official: true });
    const listed = confirmed.state.catalog.find((model) => model.id === effect.model.id);
    expect(listed?.listedAt).toBe(confirmed.state.feed.at(-1)?.changeTime);
    expect(confirmed.state.deferred.has(event.id)).toBe(false);
    expectConsistentCatalog(confirmed.state);

    const reject = { kind: 'verification', eventId: event.id, status: 'rejected' } as const;
    const rejected = applyPublication(pending, reject, NOW_S + 10).state;
    expect(rejected.catalog).toEqual(pending.catalog);
    expect(rejected.deferred.has(event.id)).toBe(false);
  });

  it('keeps the catalog and the price histories consistent through many publications', () => {
    const { state } = publishAll(400);
    expect(state.catalog.length).toBeGreaterThan(dataset.catalog.length);
    expectConsistentCatalog(state);
    // Prices stay within reach of the data set's: a long run does not drift to zero or to the moon.
    for (const model of dataset.catalog) {
      const now = state.catalog.find((candidate) => candidate.id === model.id)?.pricing;
      for (const [was, is] of [
        [model.pricing.inputPerMillion, now?.inputPerMillion],
        [model.pricing.outputPerMillion, now?.outputPerMillion],
      ]) {
        if (!was || !is) continue;
        expect(is / was).toBeGreaterThan(0.2);
        expect(is / was).toBeLessThan(2.5);
      }
    }
  });
});

describe('publishBacklog', () => {
  it('publishes what one-by-one price changes would, with the feed extended once', () => {
    const state = initialLiveState(dataset);
    const backlog = publishBacklog(dataset, state, { seed: 3, firstSequence: 1, count: 50, nowMs: NOW_MS });
    let oneByOne = state;
    for (let sequence = 1; sequence <= 50; sequence++) {
      const publication = generateChange(dataset, oneByOne, {
        seed: 3,
        sequence,
        nowMs: NOW_MS,
        kind: 'price_change',
      });
      oneByOne = applyPublication(oneByOne, publication, NOW_S).state;
    }
    expect(backlog.state.feed).toEqual(oneByOne.feed);
    expect(backlog.state.catalog).toEqual(oneByOne.catalog);
    expect(backlog.state.histories).toEqual(oneByOne.histories);
    expect(backlog.state.deferred).toEqual(oneByOne.deferred);
  });
});

describe('the sandbox publishing over HTTP', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  /** One page, valid for the runner's schema; every field of its first item checked against service.md. */
  async function changes(query: string): Promise<FeedPageBody> {
    if (sandbox === undefined) throw new Error('no sandbox');
    const answer = await call<FeedPageBody>(sandbox, `/api/v1/changes?${query}`);
    expect(answer.status).toBe(200);
    expect(ChangesPageSchema.safeParse(answer.body).success).toBe(true);
    const [first] = answer.body.items;
    if (first !== undefined) expectChangeEvent(first);
    return answer.body;
  }

  /** Polls with since=latest until nothing new comes; bounded. */
  async function pollFrom(since: number, limit: number, rounds: number) {
    const seen: ChangeEvent[] = [];
    let cursor = since;
    for (let round = 0; round < rounds; round++) {
      const page = await changes(`since=${cursor}&limit=${limit}`);
      if (page.latest === null) return { seen, latest: cursor };
      expect(page.latest).toBeGreaterThan(cursor);
      seen.push(...page.items);
      cursor = page.latest;
    }
    throw new Error('polling did not terminate');
  }

  it('a poller that always sends back latest sees every published change exactly once, in order', async () => {
    // A clock that never moves: every change is published in the same second.
    sandbox = await startSandbox({ tier: 'pro', now: () => NOW_MS });
    const start = await pollFrom(0, 100, 10);
    expect(start.seen).toHaveLength(DATA_EVENTS);
    const published: ChangeEvent[] = [];
    const seen: ChangeEvent[] = [];
    let latest = start.latest;
    for (let round = 0; round < 25; round++) {
      for (let count = 0; count < round % 4; count++) published.push(sandbox.publish());
      const poll = await pollFrom(latest, 2, 50);
      seen.push(...poll.seen);
      latest = poll.latest;
    }
    expect(published.length).toBeGreaterThan(30);
    // A verification publishes an event again, with its new status: it is seen again, once.
    expect(seen).toEqual(published);
  });

  it('publish(kind) publishes that kind and logs it on one line', async () => {
    const lines: string[] = [];
    sandbox = await startSandbox({ log: (level, message) => lines.push(`${level} ${message}`) });
    const price = sandbox.publish('price_change');
    const verification = sandbox.publish('verification');
    const model = sandbox.publish('new_model');
    expect(price.eventType).toBe('price_change');
    expect(model.eventType).toBe('new_model');
    expect(['official', 'rejected']).toContain(verification.verificationStatus);
    const published = lines.filter((line) => line.startsWith('info published '));
    expect(published).toEqual([
      `info published price_change ${price.id}: ${price.title}`,
      `info published verification ${verification.id}: ${verification.title} (now ${verification.verificationStatus})`,
      `info published new_model ${model.id}: ${model.title}`,
    ]);
    expect(() => sandbox?.publish('deprecation' as never)).toThrow(/unknown kind of change "deprecation"/);
    const page = await changes('limit=3');
    expect(page.items.map((item) => item.id)).toEqual([model.id, verification.id, price.id]);
  });

  it('a published price change shows in /models and in the price history', async () => {
    sandbox = await startSandbox({ seed: 11 });
    let event = sandbox.publish('price_change');
    for (let round = 0; round < 20 && !event.official; round++) event = sandbox.publish('price_change');
    expect(event.official).toBe(true);
    const price = parsePriceText(event.afterValue);
    const url = new URL(event.sourceUrl ?? '');
    const id = url.pathname.slice(1);
    const models = await call<{ items: { id: string; pricing: unknown }[] }>(sandbox, '/api/v1/models');
    expect(models.body.items.find((model) => model.id === id)?.pricing).toEqual({
      inputPerMillion: price?.inputPrice,
      outputPerMillion: price?.outputPrice,
    });
    const history = await call<{ points: unknown[] }>(sandbox, `/api/v1/models/${historySlug(id)}/history`);
    expect(history.body.points.at(-1)).toMatchObject({ ...price });
  });

  it('publishMany(10000) finishes', () => {
    const app = createSandboxApp({ dataset, now: () => NOW_MS });
    const started = performance.now();
    app.publishMany(10_000);
    // A bound on a hang, not a speed (about 0.2 s here): a pass over the feed per event would take minutes.
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('after publishMany(10000), paging with since and limit=100 visits every change once', async () => {
    const lines: string[] = [];
    sandbox = await startSandbox({ tier: 'pro', log: (level, message) => lines.push(`${level} ${message}`) });
    sandbox.publishMany(10_000);
    expect(lines.filter((line) => line.startsWith('info published'))).toEqual([
      'info published 10000 price_change events at once',
    ]);
    const ids = new Set<string>();
    let since = 0;
    let pages = 0;
    for (; pages < 200; pages++) {
      const page = await changes(`since=${since}&limit=100`);
      if (page.latest === null) break;
      for (const item of page.items) ids.add(item.id);
      since = page.latest;
    }
    expect(ids.size).toBe(DATA_EVENTS + 10_000);
    expect(pages).toBe(Math.ceil((DATA_EVENTS + 10_000) / 100));
    expect(() => sandbox?.publishMany(-1)).toThrow(RangeError);
    expect(() => sandbox?.publishMany(1.5)).toThrow(RangeError);
  });

  it('queryFeed reads only what a page needs: 10,000 since-queries on a 10,000-entry feed read far fewer than 10,000 entries each', () => {
    const { state } = publishBacklog(dataset, initialLiveState(dataset), {
      seed: 1,
      firstSequence: 1,
      count: 10_000,
      nowMs: NOW_MS,
    });
    const times = state.feed.map((entry) => entry.changeTime);
    // Entries read, counted: a pass over the whole feed per query would read 10,000 × 10,000.
    let reads = 0;
    const counted = new Proxy(state.feed, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    for (const time of times) queryFeed(counted, { since: time - 1, limit: 100 });
    expect(reads).toBeLessThan(10_000 * 1_000);
  });

  it('startLive publishes on a timer until stopped; close() stops it too', async () => {
    sandbox = await startSandbox({ tier: 'pro' });
    const feedLength = async () => (await pollFrom(0, 100, 200)).seen.length;
    const stop = sandbox.startLive(10);
    const deadline = performance.now() + 5000;
    while ((await feedLength()) < DATA_EVENTS + 3 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    stop();
    const stopped = await feedLength();
    expect(stopped).toBeGreaterThanOrEqual(DATA_EVENTS + 3);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await feedLength()).toBe(stopped);
    expect(() => sandbox?.startLive(0)).toThrow(RangeError);

    sandbox.startLive(10);
    await sandbox.close();
    expect(() => sandbox?.startLive(10)).toThrow(/closed/);
  });

  it('the live option starts publishing at once', async () => {
    const lines: string[] = [];
    sandbox = await startSandbox({
      live: { everyMs: 10 },
      log: (level, message) => lines.push(`${level} ${message}`),
    });
    const deadline = performance.now() + 5000;
    while (!lines.some((line) => line.startsWith('info published ')) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(lines.find((line) => line.startsWith('info published '))).toMatch(
      /^info published (price_change|verification|new_model) [0-9a-f-]{36}: \S/,
    );
    await expect(startSandbox({ live: { everyMs: 0 } })).rejects.toThrow(RangeError);
  });
});

describe('createSandboxApp', () => {
  it('starts every app from the data set, whatever another app published', () => {
    const first: SandboxApp = createSandboxApp({ dataset, now: () => NOW_MS });
    first.publishMany(100);
    const second = createSandboxApp({ dataset, now: () => NOW_MS });
    const event = second.publish();
    expect(event).toEqual(createSandboxApp({ dataset, now: () => NOW_MS }).publish());
  });
});
