/**
 * A watcher that lost its lock (taken over by another process, or removed) stops before its next
 * save: two watchers moving one cursor would each skip what the other delivered.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedApi } from '../../src/api/client.js';
import { apiSchemas } from '../../src/api/schemas.js';
import { silentLogger } from '../../src/log.js';
import { acquireLock } from '../../src/store/lock.js';
import type { Sink } from '../../src/watch/sinks/sink.js';
import { runWatcher } from '../../src/watch/watcher.js';
import { changeEvent, silentStatus, watchOptions } from '../fixtures.js';

const { ChangesPage: ChangesPageSchema } = apiSchemas();

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The fixtures' detection time: change times are never before it (the feed's contract). */
const DETECTED = Date.parse('2024-08-06T00:00:00Z') / 1000;

/** Changes with change times DETECTED + 1..count, as the service pages them. */
function memoryFeed(count: number): FeedApi {
  const events = Array.from({ length: count }, (_, i) => ({
    time: DETECTED + i + 1,
    event: changeEvent({ id: `e${i + 1}` }),
  }));
  const unused = async () => {
    throw new Error('not used');
  };
  return {
    async readChanges(query) {
      const page = events.filter((e) => e.time > (query.since ?? 0)).slice(0, query.limit ?? 20);
      const body = { items: page.map((e) => e.event), nextCursor: null, latest: page.at(-1)?.time ?? null };
      return { page: ChangesPageSchema.parse(body), sent: body.items };
    },
    listChanges: unused,
    listChangesCached: unused,
    listModels: unused,
    getPriceHistory: unused,
    rateLimit: { limit: 100_000, remaining: 99_000, tier: 'pro', observedAt: '' },
  };
}

describe('the lock, before each save', () => {
  it('a lock taken over mid-run stops the watcher, the cursor left at the last page it held the lock for', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mf-watcher-lock-'));
    folders.push(folder);
    const statePath = join(folder, 'state.json');
    const lock = await acquireLock(`${statePath}.lock`);
    const delivered: string[] = [];
    const sink: Sink = {
      label: 'memory',
      async deliver(delivery) {
        delivered.push(delivery.event.id);
        // Another watcher takes the lock over while the second page is being delivered.
        if (delivery.event.id === 'e150') {
          const other = { pid: process.ppid, host: hostname(), startedAt: new Date().toISOString() };
          writeFileSync(`${statePath}.lock`, JSON.stringify(other));
        }
      },
      flush: async () => {},
      close: async () => {},
    };
    const result = await runWatcher(
      watchOptions({ once: true }),
      {
        api: memoryFeed(250),
        sink,
        log: silentLogger,
        status: silentStatus,
        statePath,
        service: 'memory',
        now: Date.now,
        sleep: async () => {},
        random: () => 0.5,
        checkLock: lock.check,
      },
      new AbortController().signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toContain(`${statePath}.lock is no longer this watcher's`);
    expect(result.message).toContain(`process ${process.ppid}`);
    expect(delivered).toHaveLength(200);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).cursor).toBe(DETECTED + 100);
    // The other process's lock is left alone.
    await lock.release();
    expect(JSON.parse(readFileSync(`${statePath}.lock`, 'utf8')).pid).toBe(process.ppid);
  });
});
