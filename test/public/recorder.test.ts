/**
 * When the recorder fetches, and what it answers when it cannot: a files store in a temp folder, a
 * fetcher that counts its calls, and a clock the test moves.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OriginUnavailableError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import type { OriginsFetch } from '../../src/public/fetch-origins.js';
import { parseOpenRouterCatalog } from '../../src/public/openrouter-catalog.js';
import type { RecordedStateJson } from '../../src/public/recorded-state.js';
import { Recorder } from '../../src/public/recorder.js';
import { openFileStore } from '../../src/public/store/file-store.js';
import { tempFolder } from '../support/temp.js';
import { answer, listing, T0 } from './catalog-fixtures.js';

const log = createLogger({ level: 'silent', format: 'text', write: () => {} });

function setUp(folder = join(tempFolder('mf-recorder-'), 'store')) {
  const clock = { ms: T0 * 1000 };
  const calls: number[] = [];
  let failWith: Error | undefined;
  const fetchOrigins = async (takenAt: number): Promise<OriginsFetch> => {
    calls.push(takenAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (failWith !== undefined) throw failWith;
    return {
      catalog: parseOpenRouterCatalog(answer([listing({ id: 'openai/gpt-4o' })]), takenAt),
      statuses: { openrouter: 'ok' },
    };
  };
  const recorder = (staleMaxAgeS = 7 * 86_400) =>
    new Recorder({
      store: openFileStore<RecordedStateJson>(folder),
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
});
