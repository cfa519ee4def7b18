/**
 * Each sink end to end: the built CLI against the sandbox, delivering into a real webhook receiver,
 * a real shell command and a real file.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { eventually, spawnRaw } from './harness.js';
import { envelopes, feedIds, runWatch, tempDir, verifyStandardWebhook, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

/** The `since` after which exactly the `count` newest changes lie. */
async function sinceNewest(count: number): Promise<number> {
  const response = await fetch(`${sandbox.url}/api/v1/changes?limit=${count + 1}`, {
    headers: { authorization: `Bearer ${sandbox.key}` },
  });
  return ((await response.json()) as { nextCursor: number }).nextCursor;
}

interface Receiver {
  url: string;
  accepted: { id: string; body: string; verified: boolean }[];
  requests: number;
  close(): void;
}

async function receiver(
  secret: string,
  answer: (n: number, res: ServerResponse) => boolean,
): Promise<Receiver> {
  const state: Receiver = { url: '', accepted: [], requests: 0, close: () => {} };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      state.requests++;
      if (!answer(state.requests, res)) return;
      const id = String(req.headers['webhook-id']);
      state.accepted.push({ id, body, verified: verifyStandardWebhook(secret, req.headers, body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/model-feed`;
  state.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return state;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('--webhook', () => {
  it('rides out a 500, a hang past the timeout and a 429, then delivers each change exactly once, signed', async () => {
    const secret = newSecret();
    const hook = await receiver(secret, (n, res) => {
      if (n === 1) res.writeHead(500).end('boom');
      else if (n === 2)
        return false; // hangs: never answered
      else if (n === 3) res.writeHead(429, { 'retry-after': '1' }).end();
      else return true;
      return false;
    });
    try {
      const since = await sinceNewest(4);
      const expected = await feedIds(sandbox, since);
      const run = await runWatch(
        [
          '--once',
          '--since',
          String(since),
          '--state',
          join(tempDir(), 's.json'),
          '--webhook',
          hook.url,
          '--timeout',
          '1000',
        ],
        watchEnv(sandbox, { MODEL_FEED_WEBHOOK_SECRET: secret }),
        40_000,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('');
      expect(hook.accepted.map((a) => JSON.parse(a.body).data.id)).toEqual(expected);
      expect(hook.accepted.every((a) => a.verified)).toBe(true);
      expect(new Set(hook.accepted.map((a) => a.id)).size).toBe(expected.length);
      expect(hook.accepted.map((a) => a.id)).toEqual(hook.accepted.map((a) => JSON.parse(a.body).deliveryId));
      expect(run.stderr).toContain('attempt 1 of 10');
      expect(run.stderr).not.toContain(secret);
      expect(run.stderr).not.toContain('/hooks/model-feed');
    } finally {
      hook.close();
    }
  }, 45_000);

  it('sends no retry before the receiver’s retry-after has passed', async () => {
    const secret = newSecret();
    const arrivals: number[] = [];
    // retry-after 2 s is longer than the first backoff step (0.5–1 s): it sets the wait.
    const hook = await receiver(secret, (n, res) => {
      arrivals.push(performance.now());
      if (n > 1) return true;
      res.writeHead(429, { 'retry-after': '2' }).end();
      return false;
    });
    try {
      const since = await sinceNewest(1);
      const run = await runWatch(
        ['--once', '--since', String(since), '--state', join(tempDir(), 's.json'), '--webhook', hook.url],
        watchEnv(sandbox, { MODEL_FEED_WEBHOOK_SECRET: secret }),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(hook.accepted).toHaveLength(1);
      expect(arrivals).toHaveLength(2);
      const [limited, retried] = arrivals as [number, number];
      // A few ms of slack: the receiver's clock starts a little after the watcher's.
      expect(retried - limited).toBeGreaterThanOrEqual(1990);
      expect(run.stderr).toContain('trying again in 2 s');
    } finally {
      hook.close();
    }
  });

  it('a permanent failure (400) exits 1 and leaves the cursor where it was', async () => {
    const secret = newSecret();
    const hook = await receiver(secret, (_n, res) => {
      res.writeHead(400).end('bad payload');
      return false;
    });
    try {
      const since = await sinceNewest(2);
      const state = join(tempDir(), 's.json');
      const run = await runWatch(
        ['--once', '--since', String(since), '--state', state, '--webhook', hook.url],
        watchEnv(sandbox, { MODEL_FEED_WEBHOOK_SECRET: secret }),
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('400');
      expect(hook.requests).toBe(1);
      expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(since);
    } finally {
      hook.close();
    }
  });

  it('refuses plain http to another host and a missing secret, with exit 2', async () => {
    const remote = await runWatch(
      ['--once', '--webhook', 'http://hooks.example.com/x'],
      watchEnv(sandbox, { MODEL_FEED_WEBHOOK_SECRET: newSecret() }),
    );
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('https://');
    const noSecret = await runWatch(
      ['--once', '--webhook', 'https://hooks.example.com/x'],
      watchEnv(sandbox),
    );
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('MODEL_FEED_WEBHOOK_SECRET');
  });
});

describe('--exec', () => {
  it('a command that fails is run again; every change reaches it once it succeeds', async () => {
    const dir = tempDir();
    const log = join(dir, 'received.jsonl');
    const script = join(dir, 'notify.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        // Fails on its first run only.
        `if [ ! -f "${dir}/ran-once" ]; then touch "${dir}/ran-once"; exit 3; fi`,
        `printf '%s %s %s %s\\n' "$MODEL_FEED_EVENT_ID" "$MODEL_FEED_EVENT_TYPE" "$MODEL_FEED_MODEL" "\${MODEL_FEED_API_KEY:-no-key}" >> "${dir}/env.txt"`,
        `cat >> "${log}"`,
      ].join('\n'),
      { mode: 0o700 },
    );
    const since = await sinceNewest(3);
    const expected = await feedIds(sandbox, since);
    const run = await runWatch(
      ['--once', '--since', String(since), '--state', join(dir, 's.json'), '--exec', script],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('exited with code 3');
    const received = envelopes(readFileSync(log, 'utf8'));
    expect(received.map((e) => e.data.id)).toEqual(expected);
    const env = readFileSync(join(dir, 'env.txt'), 'utf8').trim().split('\n');
    expect(env.map((line) => line.split(' ')[0])).toEqual(expected);
    // The key is never handed to the user's command.
    expect(env.every((line) => line.endsWith(' no-key'))).toBe(true);
  });
});

describe('shutdown', () => {
  it('SIGTERM abandons a delivery in progress, kills the command, keeps the cursor, and exits without waiting for the command', async () => {
    const dir = tempDir();
    const state = join(dir, 's.json');
    const since = await sinceNewest(2);
    const watcher = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--since',
      String(since),
      '--state',
      state,
      '--exec',
      `echo $$ > "${dir}/pid"; exec sleep 30`,
    ]);
    await eventually(
      () => existsSync(join(dir, 'pid')) && readFileSync(join(dir, 'pid'), 'utf8').endsWith('\n'),
      'the command to start',
    );
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    const before = performance.now();
    watcher.child.kill('SIGTERM');
    const exit = await watcher.exited;
    expect(exit.code).toBe(0);
    // The command sleeps 30 s: a watcher that waited for it would take that long.
    expect(exit.at - before).toBeLessThan(10_000);
    expect(JSON.parse(readFileSync(state, 'utf8')).cursor).toBe(since);
    expect(() => process.kill(pid, 0)).toThrow();
    // A cursor is saved here: the stop says the next run makes the abandoned delivery again.
    expect(watcher.stderr()).toContain(
      'stopping: the delivery in progress is abandoned, and the next run makes it again\n',
    );
  });
});

describe('--atom', () => {
  it('keeps a valid Atom feed with one entry per change', async () => {
    const dir = tempDir();
    const file = join(dir, 'changes.atom');
    const run = await runWatch(
      ['--once', '--since', '0', '--state', join(dir, 's.json'), '--atom', file],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    const xml = readFileSync(file, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const feed = new XMLParser({ ignoreAttributes: false }).parse(xml).feed;
    const entries = [feed.entry].flat();
    const ids = entries.map((entry: { id: string }) => entry.id);
    expect(ids.length).toBe((await feedIds(sandbox)).length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('links the feed to itself with --atom-url, and refuses a URL that is not absolute http(s)', async () => {
    const dir = tempDir();
    const file = join(dir, 'changes.atom');
    const flags = ['--once', '--since', '0', '--state', join(dir, 's.json'), '--atom', file];
    const run = await runWatch(
      [...flags, '--atom-url', 'https://example.com/changes.atom'],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    const feed = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(file, 'utf8')).feed;
    expect(feed.link).toEqual({
      '@_rel': 'self',
      '@_type': 'application/atom+xml',
      '@_href': 'https://example.com/changes.atom',
    });

    const relative = await runWatch([...flags, '--atom-url', 'changes.atom'], watchEnv(sandbox));
    expect(relative.code).toBe(2);
    expect(relative.stderr).toContain('--atom-url must be an absolute http(s) URL');
  });
});
