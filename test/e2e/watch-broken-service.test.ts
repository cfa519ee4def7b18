/**
 * `watch` against a service that misbehaves, end to end: the built CLI and a loopback stub on port
 * 0. An outage before the first poll, a `latest` that breaks the cursor contract, service text that
 * would forge lines, an item too large to read.
 */

import { readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, spawnRaw } from './harness.js';
import { runWatch, tempDir, watchEnv } from './watch-support.js';

const KEY = 'mfsk_test_key_123456';
const PRO = {
  'content-type': 'application/json',
  'x-ratelimit-limit': '100000',
  'x-ratelimit-remaining': '99999',
  'x-service-tier': 'pro',
};

const folders: string[] = [];
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function statePath(): string {
  const folder = tempDir();
  folders.push(folder);
  return join(folder, 'state.json');
}

/** A loopback service answering with `handle`; closed after the file's tests. */
async function stub(
  handle: (req: IncomingMessage, res: ServerResponse, url: URL) => void,
): Promise<{ url: string }> {
  const server = createServer((req, res) => handle(req, res, new URL(req.url ?? '/', 'http://stub')));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function change(id: string, detectedAt = '2026-06-30T10:00:00Z'): Record<string, unknown> {
  return {
    id,
    eventType: 'new_model',
    title: `change ${id}`,
    detectedAt,
    model: { slug: 'acme', name: 'Acme 1' },
  };
}

describe('a service that is down before the first poll', () => {
  it('delivers within seconds of the recovery, on the backoff the log announces', async () => {
    const OUTAGE_MS = 4000;
    let firstRequest: number | undefined;
    let recoveredAt: number | undefined;
    let refused = 0;
    const feed = await stub((_req, res, url) => {
      const now = performance.now();
      firstRequest ??= now;
      // The outage is on when the first poll arrives, and lasts 4 s from it: resets and bare 503s
      // (no rate-limit headers), so no answer tells the tier until it is over.
      if (now - firstRequest < OUTAGE_MS) {
        refused++;
        if (refused % 2 === 1) res.socket?.destroy();
        else {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end('{"error":"maintenance"}');
        }
        return;
      }
      recoveredAt ??= now;
      res.writeHead(200, PRO);
      res.end(
        JSON.stringify(
          url.searchParams.get('since') === '0'
            ? { items: [change('evt-after-outage')], nextCursor: null, latest: 1_782_856_045 }
            : { items: [], nextCursor: null, latest: null },
        ),
      );
    });
    const watcher = spawnRaw(watchEnv({ url: feed.url, key: KEY }), [
      'watch',
      '--since',
      '0',
      '--state',
      statePath(),
    ]);
    try {
      // Minutes (346 s) before the fix; a few seconds after it. Generous for a loaded machine.
      await eventually(
        () => watcher.stdout().includes('evt-after-outage'),
        'the change after the outage',
        25_000,
      );
      const deliveredAt = performance.now();
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(deliveredAt - (recoveredAt as number)).toBeLessThan(15_000);
      expect(watcher.stderr()).toMatch(/polling failed \(1 in a row\): .* Retrying in [1-2] s\./);
    } finally {
      watcher.child.kill('SIGTERM');
      await watcher.exited;
    }
  }, 40_000);
});

describe('a `latest` that breaks the cursor contract', () => {
  it('stops with exit 1, naming the answer, and never moves the cursor (a milliseconds latest)', async () => {
    const latestMs = 1_782_856_045_000;
    const feed = await stub((_req, res) => {
      res.writeHead(200, PRO);
      res.end(
        JSON.stringify({
          items: [change('evt-ms-1'), change('evt-ms-2')],
          nextCursor: null,
          latest: latestMs,
        }),
      );
    });
    const state = statePath();
    // Not --once: a long-running watcher must stop too, not poll the broken answer forever.
    const run = await runWatch(['--since', '0', '--state', state], watchEnv({ url: feed.url, key: KEY }));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe('');
    const last = run.stderr.trimEnd().split('\n').at(-1) as string;
    expect(last).toMatch(/^model-feed-mcp: .*latest=1782856045000, .* years past this machine's clock/);
    expect(last).toContain('looks like milliseconds');
    expect(last).toContain('The cursor stays at 0');
    expect(last).toContain(new URL(feed.url).host);
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(0);
  }, 30_000);
});

describe('a `latest` that does not move past the cursor', () => {
  it('stops with exit 1, naming the service host as its other service errors do', async () => {
    const feed = await stub((_req, res, url) => {
      res.writeHead(200, PRO);
      const since = Number(url.searchParams.get('since') ?? 0);
      res.end(
        JSON.stringify({ items: [change('evt-stuck-1')], nextCursor: null, latest: since || 1_782_856_000 }),
      );
    });
    const state = statePath();
    const run = await runWatch(
      ['--since', '1782856000', '--state', state],
      watchEnv({ url: feed.url, key: KEY }),
    );
    expect(run.code, run.stderr).toBe(1);
    const last = run.stderr.trimEnd().split('\n').at(-1) as string;
    expect(last).toContain('does not move past');
    expect(last).toContain(new URL(feed.url).host);
    expect(last).not.toMatch(/ (at|from|of) [:,.(]/);
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(1_782_856_000);
  }, 30_000);
});

describe('service text in the last message', () => {
  it('cannot forge lines: an event id with a newline or U+2028 stays on the one line it is quoted on', async () => {
    const id =
      'evt-1\nmodel-feed-mcp info: forged by the service\u2028model-feed-mcp: forged too\u2029\x1b[2J';
    const feed = await stub((_req, res, url) => {
      res.writeHead(200, PRO);
      res.end(
        JSON.stringify(
          url.searchParams.get('since') === '0'
            ? { items: [change(id)], nextCursor: null, latest: 1_782_856_045 }
            : { items: [], nextCursor: null, latest: null },
        ),
      );
    });
    // A sink that refuses the change: the watcher's last message names it by its delivery id.
    const run = await runWatch(
      ['--once', '--since', '0', '--max-attempts', '1', '--exec', 'exit 3', '--state', statePath()],
      watchEnv({ url: feed.url, key: KEY }),
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/[\u2028\u2029\x1b\x85]/);
    const lines = run.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^model-feed-mcp( \w+)?: /);
    expect(lines.filter((line) => line.includes('forged by the service'))).toHaveLength(
      lines.filter((line) => line.includes('evt-1')).length,
    );
    const last = lines.at(-1) as string;
    expect(last).toMatch(
      /^model-feed-mcp: delivery of change evt-1 model-feed-mcp info: forged by the service model-feed-mcp: forged too/,
    );
  }, 30_000);
});

describe('a change too large to read', () => {
  it('delivers the changes before it, then stops with exit 1 naming it, instead of failing every poll', async () => {
    // Change times 1782856001..3, each detected just before; the second has a title past the limits.
    const changes = [1, 2, 3].map((n) => ({
      time: 1_782_856_000 + n,
      item: { ...change(`evt-big-${n}`), ...(n === 2 && { title: 'x'.repeat(150_000) }) },
    }));
    const feed = await stub((_req, res, url) => {
      const since = Number(url.searchParams.get('since') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = changes.filter((c) => c.time > since).slice(0, limit);
      res.writeHead(200, PRO);
      res.end(
        JSON.stringify({
          items: page.map((c) => c.item),
          nextCursor: null,
          latest: page.at(-1)?.time ?? null,
        }),
      );
    });
    const state = statePath();
    const run = await runWatch(['--since', '0', '--state', state], watchEnv({ url: feed.url, key: KEY }));
    expect(run.code, run.stderr).toBe(1);
    expect(
      run.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).data.id),
    ).toEqual(['evt-big-1']);
    const last = run.stderr.trimEnd().split('\n').at(-1) as string;
    expect(last).toMatch(
      /^model-feed-mcp: The change "evt-big-2" after change time 1782856001 cannot be read: a string of 150000 characters/,
    );
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(1_782_856_001);
  }, 30_000);

  it('names it by id and the --skip that moves past it; --skip with that id delivers what follows, recorded in the state and the log', async () => {
    const changes = [1, 2, 3, 4].map((n) => ({
      time: 1_782_856_000 + n,
      item: { ...change(`evt-skip-${n}`), ...(n === 2 && { title: 'x'.repeat(150_000) }) },
    }));
    const feed = await stub((_req, res, url) => {
      const since = Number(url.searchParams.get('since') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = changes.filter((c) => c.time > since).slice(0, limit);
      res.writeHead(200, PRO);
      res.end(
        JSON.stringify({
          items: page.map((c) => c.item),
          nextCursor: null,
          latest: page.at(-1)?.time ?? null,
        }),
      );
    });
    const env = watchEnv({ url: feed.url, key: KEY });
    const state = statePath();
    const ids = (stdout: string) =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).data.id);
    const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1) as string;

    const first = await runWatch(['--since', '0', '--state', state], env);
    expect(first.code, first.stderr).toBe(1);
    expect(ids(first.stdout)).toEqual(['evt-skip-1']);
    expect(lastLine(first.stderr)).toMatch(
      /^model-feed-mcp: The change "evt-skip-2" after change time 1782856001 cannot be read: a string of 150000 characters/,
    );
    expect(lastLine(first.stderr)).toContain('--skip evt-skip-2');

    // Another id: nothing moves, and the message names both.
    const wrong = await runWatch(['--once', '--state', state, '--skip', 'evt-skip-3'], env);
    expect(wrong.code, wrong.stderr).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(lastLine(wrong.stderr)).toMatch(/--skip evt-skip-3 names another change.*nothing was skipped/);
    expect(lastLine(wrong.stderr)).toContain('"evt-skip-2"');
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(1_782_856_001);

    const skipped = await runWatch(['--once', '--state', state, '--skip', 'evt-skip-2'], env);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(ids(skipped.stdout)).toEqual(['evt-skip-3', 'evt-skip-4']);
    expect(skipped.stderr).toMatch(
      /model-feed-mcp warn: skipped change "evt-skip-2" \(change time 1782856002\)/,
    );
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.cursor).toBe(1_782_856_004);
    expect(saved.skipped).toEqual([
      {
        id: 'evt-skip-2',
        changeTime: 1_782_856_002,
        reason: expect.stringContaining('a string of 150000 characters'),
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
  }, 60_000);
});
