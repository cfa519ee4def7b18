/**
 * When the recorder fetches, and what it answers when it cannot: a files store in a temp folder, a
 * fetcher that counts its calls, and a clock the test moves.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AbortedError, OriginUnavailableError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import type { OriginsFetch } from '../../src/public/fetch-origins.js';
import { parseOpenRouterCatalog } from '../../src/public/openrouter-catalog.js';
import type { RecordedStateJson } from '../../src/public/recorded-state.js';
import { Recorder } from '../../src/public/recorder.js';
import { openFileStore } from '../../src/public/store/file-store.js';
import { tempFolder } from '../support/temp.js';
import { answer, listing, T0 } from './catalog-fixtures.js';

const log = createLogger({ level: 'silent', format: 'text', write: () => {} });

function setUp(folder = join(tempFolder('mf-recorder-'), 'store'), created = T0 - 200 * 86_400) {
  const clock = { ms: T0 * 1000 };
  const calls: number[] = [];
  let failWith: Error | undefined;
  const fetchOrigins = async (takenAt: number): Promise<OriginsFetch> => {
    calls.push(takenAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (failWith !== undefined) throw failWith;
    return {
      catalog: parseOpenRouterCatalog(answer([listing({ id: 'openai/gpt-4o', created })]), takenAt),
      statuses: { openrouter: 'ok' },
    };
  };
  const recorder = (staleMaxAgeS = 7 * 86_400) =>
    new Recorder({
      store: openFileStore<RecordedStateJson>(folder, { lockWaitMs: 200 }),
      fetchOrigins,
      refreshS: 3600,
      staleMaxAgeS,
      staleMaxAgeSetting: 'MODEL_FEED_STALE_MAX_AGE_S',
      log,
      origin: { label: 'the catalog', setting: 'MODEL_FEED_OPENROUTER_URL' },
      describeFailure: (error) => (error as Error).message,
      now: () => clock.ms,
    });
  return {
    folder,
    clock,
    calls,
    recorder,
    fail: (error: Error | undefined) => {
      failWith = error;
    },
  };
}

describe('Recorder', () => {
  it('fetches once for many readers, then not again until the snapshot is older than the refresh age', async () => {
    const { clock, calls, recorder } = setUp();
    const one = recorder();
    const other = recorder(); // another process on the same store
    await Promise.all([one.current(), one.current(), other.current(), other.current()]);
    expect(calls).toHaveLength(1);
    clock.ms += 3599 * 1000;
    await other.current();
    expect(calls).toHaveLength(1);
    clock.ms += 2000;
    const renewed = await one.current();
    expect(calls).toHaveLength(2);
    expect(renewed.head.polls).toBe(2);
    expect(renewed.stale).toBeUndefined();
  });

  it('answers from the record, stale, when the fetch fails; tries again after a minute; past the bound, says so', async () => {
    const { clock, calls, recorder, fail } = setUp();
    const reader = recorder(2 * 3600);
    await reader.current();
    clock.ms += 3601 * 1000;
    fail(new Error('the catalog answered HTTP 503'));
    const stale = await reader.current();
    expect(stale.stale).toEqual({ ageSeconds: 3601, reason: 'the catalog answered HTTP 503' });
    expect(calls).toHaveLength(2);
    clock.ms += 30 * 1000;
    await reader.current();
    expect(calls).toHaveLength(2);
    clock.ms += 31 * 1000;
    await reader.current();
    expect(calls).toHaveLength(3);
    clock.ms += 3600 * 1000;
    await expect(reader.current()).rejects.toThrow(/older than MODEL_FEED_STALE_MAX_AGE_S \(7200 s\) allows/);
  });

  it('with nothing recorded and the catalog failing, an error that names the origin and its setting', async () => {
    const { recorder, fail } = setUp();
    fail(new Error('the catalog is unreachable (ECONNREFUSED)'));
    const error = await recorder()
      .current()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OriginUnavailableError);
    expect(error).toMatchObject({
      origin: 'the catalog',
      setting: 'MODEL_FEED_OPENROUTER_URL',
      reason: 'the catalog is unreachable (ECONNREFUSED)',
    });
  });

  it('a caller that cancels stops waiting; the refresh goes on for the others', async () => {
    const { calls, recorder } = setUp();
    const reader = recorder();
    const cancelled = new AbortController();
    const first = reader.current(cancelled.signal);
    const second = reader.current();
    cancelled.abort();
    await expect(first).rejects.toBeInstanceOf(AbortedError);
    expect((await second).head.polls).toBe(1);
    expect(calls).toHaveLength(1);
  });

  it('while another process holds the fetch lock past the wait, the record answers, stale', async () => {
    const { folder, clock, recorder } = setUp();
    const reader = recorder();
    await reader.current();
    clock.ms += 3601 * 1000;
    const other = openFileStore<RecordedStateJson>(folder);
    let release = () => {};
    const held = other.withFetchLock(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const answer = await reader.current();
      expect(answer.stale?.reason).toMatch(/^the record could not be renewed: /);
    } finally {
      release();
      await held;
    }
  });

  it('a head that cannot be read starts the record over without announcing its recent models again', async () => {
    const { folder, clock, recorder } = setUp(undefined, T0 - 86_400);
    const reader = recorder();
    const first = await reader.current();
    expect((await openFileStore(folder).readFeed()).map((entry) => entry.event.eventType)).toEqual([
      'new_model',
    ]);
    writeFileSync(join(folder, 'head.json'), 'garbage');
    clock.ms += 3601 * 1000;
    const again = await recorder().current();
    expect(again.head.polls).toBe(1);
    expect(again.head.takenAt).toBeGreaterThan(first.head.takenAt);
    expect(await openFileStore(folder).readFeed()).toEqual([]);
  });
});
