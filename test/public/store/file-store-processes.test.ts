/**
 * The files store shared by real processes: a writer killed at a random moment, two writers at
 * once, a reader following the feed while a writer appends. The writer is store-worker.ts,
 * bundled once, run with a scrubbed environment (it starts faster).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../../src/public/store/file-store.js';
import type { PublicStore, StoredEvent } from '../../../src/public/store/store.js';
import { tempFolder } from '../../support/temp.js';
import { nthCommit, type TestState } from './commits.js';

let worker: string;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  worker = join(tempFolder('mf-store-worker-'), 'store-worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./store-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: worker,
    logLevel: 'silent',
  });
});

afterEach(async () => {
  await Promise.all([...running].map((child) => kill(child)));
});

function start(folder: string, name: string, count: number, republish: boolean, pauseMs = 0): ChildProcess {
  const args = [worker, folder, name, String(count), String(republish), String(pauseMs)];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function kill(child: ChildProcess): Promise<unknown> {
  const gone = exited(child);
  child.kill('SIGKILL');
  return gone;
}

/** Resolves when the writer says `word`. */
function said(child: ChildProcess, word: 'ready' | 'appending'): Promise<void> {
  return new Promise((resolve, reject) => {
    const hear = (message: unknown) => {
      if (message !== word) return;
      child.off('message', hear);
      resolve();
    };
    child.on('message', hear);
    child.once('exit', (code) => reject(new Error(`the writer ended (${code}) before it said ${word}`)));
  });
}

/** Writers started together: each waits until all have started. */
async function startAll(...writers: ChildProcess[]): Promise<void> {
  await Promise.all(writers.map((writer) => said(writer, 'ready')));
  for (const writer of writers) writer.send('go');
}

const ids = (feed: readonly StoredEvent[]) => feed.map((stored) => stored.event.id);

function expectIncreasing(feed: readonly StoredEvent[]) {
  for (let index = 1; index < feed.length; index++) {
    expect(feed[index]?.changeTime).toBeGreaterThan(feed[index - 1]?.changeTime ?? 0);
  }
}

/** What n commits of nthCommit(by, …, republish) hold: every id once, and n price points. */
async function expectCommits(store: PublicStore<TestState>, by: string, n: number) {
  const head = await store.readHead();
  expect(head?.polls).toBe(n);
  expect(head?.state).toEqual({ n, by });
  const feed = await store.readFeed();
  const expected = Array.from({ length: n }, (_, index) => [`${by}-${index + 1}-a`, `${by}-${index + 1}-b`]);
  expect(new Set(ids(feed))).toEqual(new Set(expected.flat()));
  expect(feed).toHaveLength(2 * n);
  expectIncreasing(feed);
  const points = [...(await store.readPrices()).values()].flat();
  expect(points).toHaveLength(n);
}

describe('the files store across processes', () => {
  it('keeps a whole store when its writer is killed at any moment, and appends after it', async () => {
    const folder = tempFolder('mf-store-killed-');
    const readers = [openFileStore<TestState>(folder), openFileStore<TestState>(folder)];
    for (let round = 0; round < 12; round++) {
      const child = start(folder, 'c', 0, true);
      const appending = said(child, 'appending');
      await startAll(child);
      await appending;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
      await kill(child);
      // A reader that followed the store, and one that comes new to it, read the same.
      const fresh = openFileStore<TestState>(folder);
      const polls = (await fresh.readHead())?.polls ?? 0;
      for (const reader of [fresh, readers[round % 2] as PublicStore<TestState>]) {
        await expectCommits(reader, 'c', polls);
      }
      // The next writer takes the dead one's lock over and goes on, repeating nothing.
      await fresh.withFetchLock(async () => {
        await fresh.append(nthCommit('c', polls + 1, true));
      });
      await expectCommits(fresh, 'c', polls + 1);
    }
  }, 120_000);

  it('serialises two writers: every commit of each, unique times, no torn line', async () => {
    const folder = tempFolder('mf-store-two-');
    const each = 25;
    // Pausing between commits, as refreshes do: back to back, one writer would keep the lock.
    const writers = [start(folder, 'x', each, false, 40), start(folder, 'y', each, false, 40)];
    await startAll(...writers);
    expect(await Promise.all(writers.map(exited))).toEqual([0, 0]);
    const store = openFileStore<TestState>(folder);
    const head = await store.readHead();
    expect(head?.polls).toBe(2 * each);
    const feed = await store.readFeed();
    expect(feed).toHaveLength(4 * each);
    // They took turns: the lock was asked for while the other held it.
    expect(
      ids(feed)
        .slice(0, 2 * each)
        .some((id) => id.startsWith('x')),
    ).toBe(true);
    expect(
      ids(feed)
        .slice(0, 2 * each)
        .some((id) => id.startsWith('y')),
    ).toBe(true);
    expect(new Set(ids(feed)).size).toBe(4 * each);
    expectIncreasing(feed);
    for (const name of ['feed.jsonl', 'prices.jsonl', 'polls.jsonl']) {
      const lines = readFileSync(join(folder, name), 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    }
  }, 120_000);

  it('gives a reader that follows "after the newest change time" every event once while a writer appends', async () => {
    const folder = tempFolder('mf-store-follow-');
    const commits = 40;
    const writer = start(folder, 'f', commits, false);
    await startAll(writer);
    const reader = openFileStore<TestState>(folder);
    const seen: string[] = [];
    let latest = 0;
    let readsWithNews = 0;
    let done = false;
    let writerEnded = false;
    void exited(writer).then(() => (writerEnded = true));
    // Bounded by the test's own timeout; each turn yields to the writer.
    while (!done) {
      const finalRead = writerEnded;
      const feed = await reader.readFeed();
      const news = feed.filter((stored) => stored.changeTime > latest);
      seen.push(...ids(news));
      if (news.length > 0) readsWithNews++;
      latest = feed.at(-1)?.changeTime ?? latest;
      done = finalRead;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await exited(writer)).toBe(0);
    expect(seen).toHaveLength(2 * commits);
    expect(new Set(seen).size).toBe(2 * commits);
    // It read while the writer wrote, not only once at the end.
    expect(readsWithNews).toBeGreaterThan(2);
  }, 120_000);
});
