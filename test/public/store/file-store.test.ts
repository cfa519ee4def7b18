import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSystemError } from '../../../src/errors.js';
import { openFileStore } from '../../../src/public/store/file-store.js';
import type { PublicStore } from '../../../src/public/store/store.js';
import { tempFolder } from '../../support/temp.js';
import { commit, event, price, T0, type TestState } from './commits.js';

function newStore(options: Parameters<typeof openFileStore>[1] = {}) {
  const folder = join(tempFolder('mf-public-store-'), 'public', 'abc123');
  return { folder, store: openFileStore<TestState>(folder, options) };
}

/** Appends each commit under the fetch lock, as a refresh does. */
async function appendAll(store: PublicStore<TestState>, ...commits: ReturnType<typeof commit>[]) {
  return store.withFetchLock(async () => {
    let head: Awaited<ReturnType<typeof store.append>> | undefined;
    for (const one of commits) head = await store.append(one);
    return head;
  });
}

function times(feed: readonly { changeTime: number; event: { id: string } }[]) {
  return feed.map(({ changeTime, event }) => [event.id, changeTime]);
}

function headFile(folder: string) {
  return JSON.parse(readFileSync(join(folder, 'head.json'), 'utf8'));
}

describe('the files store: a round trip', () => {
  it('reads nothing, and makes nothing, before the first append', async () => {
    const { folder, store } = newStore();
    expect(await store.readHead()).toBeNull();
    expect(await store.readFeed()).toEqual([]);
    expect((await store.readPrices()).size).toBe(0);
    expect(existsSync(folder)).toBe(false);
  });

  it('gives back what was appended, to this instance and to a new one, in user-only files', async () => {
    const { folder, store } = newStore();
    const first = commit(
      T0,
      [event('a', T0 - 100), event('b', T0 - 50)],
      [price('deepseek/deepseek-v4-flash', T0), price('openai/gpt-5', T0, null)],
      { n: 1, by: 'test' },
    );
    const head = await appendAll(store, first, commit(T0 + 3600, [], [], { n: 2, by: 'test' }));
    const expected = {
      takenAt: T0 + 3600,
      recordingSince: T0,
      lastChangeTime: T0 - 50,
      polls: 2,
      lastPoll: { takenAt: T0 + 3600, origins: { openrouter: 'ok', 'models.dev': 'off' } },
      state: { n: 2, by: 'test' },
    };
    expect(head).toEqual(expected);
    for (const reader of [store, openFileStore<TestState>(folder)]) {
      expect(await reader.readHead()).toEqual(expected);
      expect(await reader.readFeed()).toEqual([
        { changeTime: T0 - 100, event: event('a', T0 - 100) },
        { changeTime: T0 - 50, event: event('b', T0 - 50) },
      ]);
      expect(await reader.readPrices()).toEqual(
        new Map([
          ['deepseek/deepseek-v4-flash', [price('deepseek/deepseek-v4-flash', T0)]],
          ['openai/gpt-5', [price('openai/gpt-5', T0, null)]],
        ]),
      );
    }
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of ['head.json', 'feed.jsonl', 'prices.jsonl', 'polls.jsonl']) {
      expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(folder, 'polls.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    // The lock is let go after the work.
    expect(existsSync(join(folder, 'fetch.lock'))).toBe(false);
  });
});

describe('the files store: change times', () => {
  it('gives events of the same second unique, increasing times', async () => {
    const { store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0 - 10), event('b', T0 - 10), event('c', T0 - 10)]));
    expect(times(await store.readFeed())).toEqual([
      ['a', T0 - 10],
      ['b', T0 - 9],
      ['c', T0 - 8],
    ]);
  });

  it('moves a re-published id to the snapshot time, and holds it once, with its newest content', async () => {
    const { store } = newStore();
    await appendAll(
      store,
      commit(T0, [event('a', T0 - 10), event('b', T0 - 5)]),
      commit(T0 + 60, [event('a', T0 - 10, 'official')]),
    );
    const feed = await store.readFeed();
    expect(times(feed)).toEqual([
      ['b', T0 - 5],
      ['a', T0 + 60],
    ]);
    expect(feed[1]?.event.verificationStatus).toBe('official');
    // Re-published in the very snapshot that first told it: once, at the later time.
    const second = newStore().store;
    await appendAll(second, commit(T0, [event('c', T0 - 10), event('c', T0 - 10, 'official')]));
    expect(times(await second.readFeed())).toEqual([['c', T0]]);
  });

  it('gives a date older than the newest change time the next second; a later date or none, the snapshot time', async () => {
    const { store } = newStore();
    const head = await appendAll(
      store,
      commit(T0, [event('late', T0 - 10)]),
      commit(T0 + 60, [event('old', T0 - 3600)]),
      commit(T0 + 120, [event('future', T0 + 86_400), event('undated', 'not a date')]),
    );
    expect(times(await store.readFeed())).toEqual([
      ['late', T0 - 10],
      ['old', T0 - 9],
      ['future', T0 + 120],
      ['undated', T0 + 121],
    ]);
    expect(head?.lastChangeTime).toBe(T0 + 121);
  });
});

describe('the files store: reads', () => {
  it('reads only what was appended since, and starts again when the store started over', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0)]));
    expect(times(await store.readFeed())).toEqual([['a', T0]]);
    // Spoil the line already read: a reader that holds it never reads it again.
    const feedPath = join(folder, 'feed.jsonl');
    const bytes = readFileSync(feedPath);
    writeFileSync(feedPath, `${'x'.repeat(bytes.length - 1)}\n`);
    await appendAll(store, commit(T0 + 60, [event('b', T0 + 60)]));
    expect(times(await store.readFeed())).toEqual([
      ['a', T0],
      ['b', T0 + 60],
    ]);
    const notes: string[] = [];
    expect(times(await openFileStore(folder, { onNote: (note) => notes.push(note) }).readFeed())).toEqual([
      ['b', T0 + 60],
    ]);
    expect(notes).toEqual([`public store: skipped 1 unreadable lines of ${feedPath}`]);

    // Removed and begun again, longer than before: the old reader drops all it held.
    rmSync(folder, { recursive: true });
    const pad = 'x'.repeat(2000);
    await appendAll(store, commit(T0 + 120, [{ ...event('c', T0 + 120), summary: pad }]));
    expect(times(await store.readFeed())).toEqual([['c', T0 + 120]]);
  });

  it('reads a log longer than one part of a read whole, lines across parts included', async () => {
    const { folder, store } = newStore();
    // 12 lines of ~450 KB: past the 4 MiB read part, with lines that straddle its edge.
    const long = (id: string) => ({ ...event(id, T0), summary: `${id} `.repeat(150_000) });
    const ids = Array.from({ length: 12 }, (_, index) => `e${index}`);
    await appendAll(store, commit(T0, ids.map(long)));
    expect(statSync(join(folder, 'feed.jsonl')).size).toBeGreaterThan(5 * 1024 * 1024);
    const feed = await openFileStore(folder).readFeed();
    expect(feed.map((stored) => stored.event)).toEqual(ids.map(long));

    // A 5 MiB line, never held whole, is skipped; the line after it is read.
    const feedPath = join(folder, 'feed.jsonl');
    appendFileSync(
      feedPath,
      `${'x'.repeat(5 * 1024 * 1024)}\n${JSON.stringify({ t: T0 + 99, e: event('after', T0) })}\n`,
    );
    const head = headFile(folder);
    head.lengths.feed = statSync(feedPath).size;
    writeFileSync(join(folder, 'head.json'), JSON.stringify(head));
    const notes: string[] = [];
    const again = await openFileStore(folder, { onNote: (note) => notes.push(note) }).readFeed();
    expect(again.map((stored) => stored.event.id)).toEqual([...ids, 'after']);
    expect(notes).toEqual([`public store: skipped 1 unreadable lines of ${feedPath}`]);
  });

  it('hands out price maps that stay as they were when more points come', async () => {
    const { store } = newStore();
    await appendAll(store, commit(T0, [], [price('m', T0, 1)]));
    const before = await store.readPrices();
    await appendAll(store, commit(T0 + 60, [], [price('m', T0 + 60, 2), price('n', T0 + 60)]));
    const after = await store.readPrices();
    expect(before.get('m')).toEqual([price('m', T0, 1)]);
    expect(after.get('m')).toEqual([price('m', T0, 1), price('m', T0 + 60, 2)]);
    expect([...after.keys()]).toEqual(['m', 'n']);
  });

  it('answers the head from memory while its file is unchanged and old enough to be sure', async () => {
    const { store } = newStore({ now: () => Date.now() + 60_000 });
    await appendAll(store, commit(T0));
    const first = await store.readHead();
    expect(await store.readHead()).toBe(first);
    await appendAll(store, commit(T0 + 60));
    expect((await store.readHead())?.takenAt).toBe(T0 + 60);
    // A head written within the last few seconds is read again each time (its clock may be coarse):
    // the same bytes are the same head, parsed once; another writer's bytes are read anew.
    const recent = newStore();
    await appendAll(recent.store, commit(T0));
    const once = await recent.store.readHead();
    expect(await recent.store.readHead()).toBe(once);
    await appendAll(openFileStore<TestState>(recent.folder), commit(T0 + 60));
    expect((await recent.store.readHead())?.takenAt).toBe(T0 + 60);
  });
});

describe('the files store: files it did not write', () => {
  it('reads an unreadable head as none, says so, and starts over at the next append', async () => {
    const notes: string[] = [];
    const { folder, store } = newStore({ onNote: (note) => notes.push(note) });
    await appendAll(store, commit(T0, [event('a', T0)]));
    expect(await store.readFeed()).toHaveLength(1);
    for (const garbage of ['{"version": 1', '{"version": 2}', '[]', '']) {
      writeFileSync(join(folder, 'head.json'), garbage);
      expect(await store.readHead()).toBeNull();
      expect(await store.readFeed()).toEqual([]);
    }
    expect(notes[0]).toMatch(/head\.json is unreadable \(.+\); the next refresh starts over$/);
    const head = await appendAll(store, commit(T0 + 60, [event('b', T0 - 3600)]));
    expect(head).toMatchObject({ polls: 1, recordingSince: T0 + 60 });
    // Past the snapshot, not at its own older date: a follower at the old store's cursor sees it.
    expect(times(await store.readFeed())).toEqual([['b', T0 + 61]]);
    expect(times(await openFileStore(folder).readFeed())).toEqual([['b', T0 + 61]]);
  });

  it('skips lines that are not JSON, not an event, too long, too deep or out of order, and counts them', async () => {
    const notes: string[] = [];
    const { folder, store } = newStore({ onNote: (note) => notes.push(note) });
    await appendAll(store, commit(T0, [event('a', T0)]));
    const feedPath = join(folder, 'feed.jsonl');
    appendFileSync(
      feedPath,
      [
        'not json',
        JSON.stringify({ t: T0 + 1, e: { id: 'no title' } }),
        JSON.stringify({ t: T0 - 1, e: event('earlier', T0 - 1) }),
        JSON.stringify({ t: T0 + 2, e: { ...event('huge', T0), summary: 'x'.repeat(1024 * 1024) } }),
        // A field nested 100,000 deep: nothing could write it out again without overflowing.
        `{"t":${T0 + 2},"e":${JSON.stringify(event('deep', T0)).slice(0, -1)},"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
        JSON.stringify({ t: T0 + 3, e: event('fine', T0 + 3) }),
        '',
      ].join('\n'),
    );
    // A hand-edited head that commits all of it.
    const head = headFile(folder);
    head.lengths.feed = statSync(feedPath).size;
    writeFileSync(join(folder, 'head.json'), JSON.stringify(head));
    expect(times(await store.readFeed())).toEqual([
      ['a', T0],
      ['fine', T0 + 3],
    ]);
    expect(notes).toEqual([`public store: skipped 5 unreadable lines of ${feedPath}`]);
  });

  it('never reads past the committed length, and the next append drops what lies there', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0)], [price('m', T0)]));
    const feedPath = join(folder, 'feed.jsonl');
    const committed = readFileSync(feedPath, 'utf8');
    // What a writer killed before its head was written leaves: whole lines, and half of one.
    const tail = `${JSON.stringify({ t: T0 + 1, e: event('torn', T0 + 1) })}\n{"t":${T0 + 2},"e":{"id":"to`;
    appendFileSync(feedPath, tail);
    appendFileSync(join(folder, 'prices.jsonl'), '{"id":"m","i":');
    expect(times(await openFileStore(folder).readFeed())).toEqual([['a', T0]]);
    await appendAll(store, commit(T0 + 60, [event('b', T0 + 60)], [price('m', T0 + 60, 1)]));
    expect(readFileSync(feedPath, 'utf8')).toBe(
      `${committed}${JSON.stringify({ t: T0 + 60, e: event('b', T0 + 60) })}\n`,
    );
    expect(times(await openFileStore(folder).readFeed())).toEqual([
      ['a', T0],
      ['b', T0 + 60],
    ]);
    expect((await openFileStore(folder).readPrices()).get('m')).toEqual([
      price('m', T0),
      price('m', T0 + 60, 1),
    ]);
  });

  it('refuses a log or head that is a FIFO or a symbolic link, in plain words, without blocking', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0)]));
    const feedPath = join(folder, 'feed.jsonl');
    const elsewhere = join(tempFolder('mf-public-store-target-'), 'feed.jsonl');
    writeFileSync(elsewhere, readFileSync(feedPath));
    rmSync(feedPath);
    symlinkSync(elsewhere, feedPath);
    const refusal = {
      name: 'FileSystemError',
      code: 'EFTYPE',
      path: feedPath,
      setting: 'XDG_STATE_HOME',
      action: expect.stringContaining('is a symbolic link'),
    };
    await expect(openFileStore(folder).readFeed()).rejects.toMatchObject(refusal);
    await expect(appendAll(store, commit(T0 + 60, [event('b', T0 + 60)]))).rejects.toMatchObject(refusal);
    expect(readFileSync(elsewhere, 'utf8')).not.toContain('"b"');

    rmSync(feedPath);
    execFileSync('mkfifo', [feedPath]);
    await expect(openFileStore(folder).readFeed()).rejects.toMatchObject({
      ...refusal,
      action: expect.stringContaining('is not a regular file (it is a FIFO)'),
    });
    await expect(appendAll(store, commit(T0 + 60, [event('b', T0 + 60)]))).rejects.toBeInstanceOf(
      FileSystemError,
    );

    const headPath = join(folder, 'head.json');
    rmSync(headPath);
    execFileSync('mkfifo', [headPath]);
    await expect(openFileStore(folder).readHead()).rejects.toMatchObject({
      ...refusal,
      path: headPath,
      action: expect.stringContaining('is not a regular file (it is a FIFO)'),
    });
  });

  it('turns a folder that cannot be made into a FileSystemError naming the setting', async () => {
    const blocker = join(tempFolder('mf-public-store-'), 'a-file');
    writeFileSync(blocker, '');
    const store = openFileStore<TestState>(join(blocker, 'public'));
    // Both caught as they are made: the second may fail while the first is awaited.
    const failures = await Promise.all(
      [store.readHead(), appendAll(store, commit(T0))].map((failing) =>
        failing.catch((error: unknown) => error),
      ),
    );
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(FileSystemError);
      expect(failure).toMatchObject({ code: 'ENOTDIR', setting: 'XDG_STATE_HOME' });
    }
  });
});

describe('the files store: what it refuses to record', () => {
  it('refuses, before writing anything, a commit whose lines or head would not read back', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0)]));
    const files = () =>
      ['head.json', 'feed.jsonl', 'polls.jsonl'].map((name) => readFileSync(join(folder, name)));
    const before = files();
    const { title: _, ...untitled } = event('b', T0 + 60);
    const refused: [ReturnType<typeof commit>, RegExp][] = [
      [
        commit(T0 + 60, [untitled as ReturnType<typeof event>]),
        /cannot record the event b: it would not read back/,
      ],
      [commit(T0 + 60, [{ ...event('c', T0), summary: 'x'.repeat(1024 * 1024) }]), /the event c/],
      [commit(T0 + 60, [], [price('', T0 + 60)]), /a price point of /],
      [
        { ...commit(T0 + 60), state: undefined as unknown as TestState },
        /its head would not read back \(.*\(state\)\)/,
      ],
      [commit((T0 + 60) * 1000), /head would not read back \(.*\(takenAt\)\)/],
      [commit(T0 + 0.5), /not a count of Unix seconds/],
    ];
    for (const [one, reason] of refused) await expect(appendAll(store, one)).rejects.toThrow(reason);
    expect(files()).toEqual(before);
    expect(await store.readHead()).toMatchObject({ polls: 1 });
  });

  it('refuses a fetch lock that is not a lock file of this user, naming it', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0));
    execFileSync('mkfifo', [join(folder, 'fetch.lock')]);
    await expect(store.withFetchLock(async () => 'ran')).rejects.toMatchObject({
      name: 'FileSystemError',
      code: 'EFTYPE',
      path: join(folder, 'fetch.lock'),
    });
  });
});

describe('the files store: growth', () => {
  it('grows by under 300 bytes a poll that changed nothing: 200 of them under 60 KB', async () => {
    const { folder, store } = newStore();
    await appendAll(store, commit(T0, [event('a', T0)], [price('m', T0)]));
    const size = () =>
      ['head.json', 'feed.jsonl', 'prices.jsonl', 'polls.jsonl']
        .map((name) => statSync(join(folder, name)).size)
        .reduce((sum, one) => sum + one, 0);
    const before = size();
    await appendAll(store, ...Array.from({ length: 200 }, (_, index) => commit(T0 + 3600 * (index + 1))));
    expect(size() - before).toBeLessThan(300 * 200);
    expect(await store.readHead()).toMatchObject({ polls: 201, recordingSince: T0 });
    expect(await store.readFeed()).toHaveLength(1);
    // Each append syncs its log and its head to the disk, so many more only take longer.
  }, 60_000);
});

describe('the files store: the fetch lock', () => {
  it('refuses an append outside withFetchLock, or inside another store’s', async () => {
    const { store } = newStore();
    await expect(store.append(commit(T0))).rejects.toThrow(/outside its withFetchLock/);
    const other = newStore().store;
    await expect(other.withFetchLock(() => store.append(commit(T0)))).rejects.toThrow(/outside/);
    expect(await store.readHead()).toBeNull();
  });

  it('runs the callers of one process one after the other, even through two instances', async () => {
    const { folder, store } = newStore();
    const twin = openFileStore<TestState>(folder);
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name} out`);
      return name;
    };
    const results = await Promise.all([
      store.withFetchLock(work('one')),
      twin.withFetchLock(work('two')),
      store.withFetchLock(work('three')),
    ]);
    expect(results).toEqual(['one', 'two', 'three']);
    expect(order).toEqual(['one in', 'one out', 'two in', 'two out', 'three in', 'three out']);
  });

  it('lets a waiting caller go when its signal aborts, and the next one still runs', async () => {
    const { store } = newStore();
    let release = () => {};
    let first: Promise<void> = Promise.resolve();
    await new Promise<void>((started) => {
      first = store.withFetchLock(() => {
        started();
        return new Promise<void>((resolve) => (release = resolve));
      });
    });
    const controller = new AbortController();
    const waiting = store.withFetchLock(async () => 'never', controller.signal);
    const third = store.withFetchLock(async () => 'third');
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    release();
    await first;
    expect(await third).toBe('third');
  });

  it('bounds the wait behind a caller of this process by lockWaitMs too', async () => {
    const { folder, store } = newStore({ lockWaitMs: 100 });
    let release = () => {};
    let first: Promise<void> = Promise.resolve();
    await new Promise<void>((started) => {
      first = store.withFetchLock(() => {
        started();
        return new Promise<void>((resolve) => (release = resolve));
      });
    });
    const failure = await store.withFetchLock(async () => 'ran').catch((error: unknown) => error);
    expect(failure).toMatchObject({
      name: 'FileSystemError',
      code: 'EBUSY',
      path: join(folder, 'fetch.lock'),
    });
    expect((failure as FileSystemError).action).toContain('another refresh of this process holds it');
    release();
    await first;
    expect(await store.withFetchLock(async () => 'ran')).toBe('ran');
  });

  it('gives up after lockWaitMs, naming the process that holds the lock', async () => {
    const { folder, store } = newStore({ lockWaitMs: 100 });
    await appendAll(store, commit(T0));
    // A live process of this machine (the one that started the tests) holds it.
    const holder = { pid: process.ppid, host: hostname(), startedAt: new Date().toISOString() };
    writeFileSync(join(folder, 'fetch.lock'), JSON.stringify(holder));
    const failure = await store.withFetchLock(async () => 'ran').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FileSystemError);
    expect(failure).toMatchObject({ code: 'EBUSY', path: join(folder, 'fetch.lock') });
    expect((failure as FileSystemError).action).toContain(`process ${process.ppid} on ${hostname()}`);
    // The one that gave up never removed another's lock.
    expect(JSON.parse(readFileSync(join(folder, 'fetch.lock'), 'utf8')).pid).toBe(process.ppid);
  });
});
