/**
 * `watch` end to end: the built CLI against the sandbox over real sockets, as a user or cron runs it.
 */

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { eventually, run, scrubbedEnv, spawnRaw } from './harness.js';
import { ENVELOPE_KEYS, envelopes, feedIds, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

describe('watch --once', () => {
  it('delivers every change once in feed order, then nothing, then what changed since', async () => {
    const state = join(tempDir(), 'state.json');
    const expected = await feedIds(sandbox);
    expect(expected.length).toBeGreaterThan(40);

    const first = await runWatch(['--once', '--since', '0', '--state', state], watchEnv(sandbox));
    expect(first.code, first.stderr).toBe(0);
    const delivered = envelopes(first.stdout);
    expect(delivered.map((e) => e.data.id)).toEqual(expected);
    for (const envelope of delivered) {
      expect(envelope.type).toBe('model_feed.change');
      expect(envelope.deliveryId.startsWith(`${envelope.data.id}_`)).toBe(true);
      expect(Number.isNaN(Date.parse(envelope.timestamp))).toBe(false);
    }

    const saved = readFileSync(state, 'utf8');
    expect(saved).not.toContain(sandbox.key);
    expect(statSync(state).mode & 0o777).toBe(0o600);
    expect(JSON.parse(saved).delivered).toBe(expected.length);

    const second = await runWatch(['--once', '--since', '0', '--state', state], watchEnv(sandbox));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');

    // A pending change is verified between runs: it comes again, with a new deliveryId.
    const pending = delivered.find((e) => e.data.verificationStatus === 'pending');
    expect(pending).toBeDefined();
    sandbox.setVerification(pending?.data.id as string, 'official');
    const third = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(third.code, third.stderr).toBe(0);
    const again = envelopes(third.stdout);
    expect(again.map((e) => e.data.id)).toEqual([pending?.data.id]);
    expect(again[0]?.data.verificationStatus).toBe('official');
    expect(again[0]?.deliveryId).not.toBe(pending?.deliveryId);
  });

  it('--since now (the default) starts after the newest change: the first run delivers nothing', async () => {
    const state = join(tempDir(), 'state.json');
    const run = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const newest = await fetch(`${sandbox.url}/api/v1/changes?limit=1`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    }).then((r) => r.json() as Promise<{ latest: number }>);
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(newest.latest);
  });

  it('sends the feed filters to the service and appends to a JSONL file', async () => {
    const dir = tempDir();
    const out = join(dir, 'changes.jsonl');
    sandbox.clearRequests();
    const run = await runWatch(
      ['--once', '--since', '0', '--type', 'price_change', '--state', join(dir, 's.json'), '--jsonl', out],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const lines = envelopes(readFileSync(out, 'utf8'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((e) => e.data.eventType === 'price_change')).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const request = sandbox.requests.find((r) => r.path === '/api/v1/changes');
    expect(request?.query).toMatchObject({ since: '0', limit: '100', type: 'price_change' });
  });

  it('exits 2 on invalid flags, 1 when the service fails', async () => {
    const state = join(tempDir(), 'state.json');
    const badType = await runWatch(['--once', '--type', 'nope', '--state', state], watchEnv(sandbox));
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain(
      "'--type <eventType>' argument 'nope' is invalid. Allowed choices are new_model",
    );
    const twoSinks = await runWatch(['--once', '--jsonl', 'a', '--atom', 'b'], watchEnv(sandbox));
    expect(twoSinks.code).toBe(2);
    expect(twoSinks.stderr).toContain('choose one sink');
    const badSince = await runWatch(['--once', '--since', 'yesterday'], watchEnv(sandbox));
    expect(badSince.code).toBe(2);

    const wrongKey = await runWatch(
      ['--once', '--state', state],
      watchEnv({ url: sandbox.url, key: 'mfsk_wrong_key_0000000000' }),
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/rejected/i);
    expect(wrongKey.stderr).not.toContain('mfsk_wrong_key_0000000000');

    const closed = await startSandbox();
    await closed.close();
    const down = await runWatch(
      ['--once', '--state', join(tempDir(), 's.json'), '--timeout', '2000'],
      watchEnv(closed),
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('ECONNREFUSED');
  });
});

describe('watch, running', () => {
  it('refuses a second watcher on the same state file, naming the first; SIGTERM stops it, its cursor saved', async () => {
    const state = join(tempDir(), 'state.json');
    const first = spawnRaw(watchEnv(sandbox), ['watch', '--since', '0', '--state', state]);
    await eventually(() => first.stderr().includes('polling every'), 'the first watcher to poll');
    expect(first.stderr()).toMatch(/polling every 4 s: .*pro tier's 100,000 calls a day/);

    const second = await runWatch(['--state', state], watchEnv(sandbox));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`process ${first.child.pid}`);
    expect(second.stderr).toContain('--state');

    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.delivered).toBe(envelopes(first.stdout()).length);
    // The lock went with it: a new watcher starts.
    const third = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(third.code, third.stderr).toBe(0);
  });

  it('SIGINT (Ctrl-C) stops it before its next poll too, with the state saved', async () => {
    const state = join(tempDir(), 'state.json');
    const expected = await feedIds(sandbox);
    const watcher = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--since',
      '0',
      '--state',
      state,
      '--interval',
      '60',
    ]);
    // Logged once the backlog is drained and saved, before the first wait.
    await eventually(() => watcher.stderr().includes('polling every'), 'the watcher to drain and poll');

    const before = performance.now();
    watcher.child.kill('SIGINT');
    const exit = await watcher.exited;
    expect(exit.code, watcher.stderr()).toBe(0);
    // The next poll is 60 s away: a watcher that waited for it would pass this bound by far.
    expect(exit.at - before).toBeLessThan(30_000);
    expect(envelopes(watcher.stdout()).map((e) => e.data.id)).toEqual(expected);
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.delivered).toBe(expected.length);
    // The next run carries on from the saved cursor: nothing again.
    const next = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe('');
  });

  it('--sandbox shows changes as the in-process sandbox publishes them, and stops on SIGTERM', async () => {
    const stateHome = tempDir();
    const watcher = spawnRaw(scrubbedEnv({ XDG_STATE_HOME: stateHome }), [
      'watch',
      '--sandbox',
      '--since',
      'now',
      '--interval',
      '1',
    ]);
    // The sandbox publishes once per poll interval, here every second.
    await eventually(() => envelopes(watcher.stdout()).length > 0, 'a change from the sandbox', 20_000);

    watcher.child.kill('SIGTERM');
    const exit = await watcher.exited;
    expect(exit.code, watcher.stderr()).toBe(0);

    const delivered = envelopes(watcher.stdout());
    expect(delivered.length).toBeGreaterThan(0);
    for (const envelope of delivered) {
      expect(Object.keys(envelope)).toEqual(ENVELOPE_KEYS);
      expect(envelope.type).toBe('model_feed.change');
      expect(envelope.timestamp).toBe(new Date(envelope.timestamp).toISOString());
      expect(envelope.deliveryId).toMatch(new RegExp(`^${envelope.data.id}_[0-9a-f]{16}$`));
      expect(typeof envelope.data.eventType).toBe('string');
    }
    expect(watcher.stderr()).toContain('sample data; a new change is published every 1 s');
    // Each sandbox is new: no cursor of it is kept for the next run (watch-terminal.test.ts).
    expect(existsSync(join(stateHome, 'model-feed-mcp'))).toBe(false);
  }, 30_000);

  it('refuses an interval that would spend more than the daily limit, naming the smallest', async () => {
    const free = await startSandbox();
    try {
      const run = await runWatch(['--interval', '10', '--state', join(tempDir(), 's.json')], watchEnv(free));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('the smallest allowed is --interval 87');
    } finally {
      await free.close();
    }
  });
});

/** A feed that answers 429 first, then an empty page; it records when each request came. */
async function limitedFeed(retryAfterS: number): Promise<{ url: string; times: number[]; server: Server }> {
  const times: number[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    times.push(performance.now());
    const headers = {
      'content-type': 'application/json',
      'x-ratelimit-limit': '100000',
      'x-service-tier': 'pro',
    };
    if (times.length === 1) {
      res.writeHead(429, { ...headers, 'retry-after': String(retryAfterS), 'x-ratelimit-remaining': '0' });
      res.end(JSON.stringify({ error: 'Daily limit reached' }));
      return;
    }
    res.writeHead(200, { ...headers, 'x-ratelimit-remaining': '99' });
    res.end(JSON.stringify({ items: [], nextCursor: null, latest: null }));
    void req;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, times, server };
}

describe('watch and the daily limit', () => {
  it('sends nothing before a 429 retry-after has passed, and says when polling resumes', async () => {
    const feed = await limitedFeed(2);
    try {
      const watcher = spawnRaw(watchEnv({ url: feed.url, key: 'mfsk_test_key_123456' }), [
        'watch',
        '--since',
        '0',
        '--interval',
        '1',
        '--state',
        join(tempDir(), 's.json'),
      ]);
      await eventually(() => feed.times.length >= 3, 'polling to resume', 8000);
      watcher.child.kill('SIGTERM');
      await watcher.exited;
      const [limited, next] = feed.times as [number, number];
      expect(next - limited).toBeGreaterThanOrEqual(1900);
      expect(watcher.stderr()).toMatch(/rate limited: polling resumes at \d\d:\d\d:\d\d UTC/);
    } finally {
      feed.server.close();
    }
  });
});

it('writes nothing but change lines to stdout, even with logs at debug', async () => {
  const run = await runWatch(
    ['--once', '--since', '0', '--log-level', 'debug', '--state', join(tempDir(), 's.json')],
    watchEnv(sandbox),
  );
  expect(run.code).toBe(0);
  for (const line of run.stdout.split('\n').filter(Boolean))
    expect(JSON.parse(line).type).toBe('model_feed.change');
  expect(run.stderr).toContain('debug');
});

it('--help gives the log level watch really uses by default: info, not the server’s warn', async () => {
  const help = await run(['watch', '--help'], watchEnv(sandbox));
  expect(help.code).toBe(0);
  const logLevel = help.stdout.replace(/\s+/g, ' ').match(/--log-level <level> (.*?) \(choices/)?.[1];
  expect(logLevel).toContain('default info');
  expect(logLevel).not.toContain('warn');

  const quiet = await runWatch(['--once', '--state', join(tempDir(), 's.json')], watchEnv(sandbox));
  expect(quiet.code, quiet.stderr).toBe(0);
  expect(quiet.stderr).toMatch(/^model-feed-mcp info: /m);
});
