/**
 * The idle warm-up: after initialize, the runner opens its connection to the service with a request
 * that carries no key (so nothing is counted), and the first call then reuses that connection.
 */

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connectCli, eventually, INITIALIZE, INITIALIZED, scrubbedEnv, spawnRaw } from './harness.js';

interface Seen {
  method: string;
  url: string;
  authorized: boolean;
  port: number;
}

let sandbox: Sandbox;
let front: { url: string; seen: Seen[]; close(): void };

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  // A front that records every request, with the client's port (one port = one connection), and
  // passes the authorised ones to the sandbox.
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorized: req.headers.authorization !== undefined,
      port: req.socket.remotePort ?? 0,
    });
    if (!req.headers.authorization) {
      res.writeHead(404).end();
      return;
    }
    const answer = await fetch(`${sandbox.url}${req.url}`, {
      headers: { authorization: req.headers.authorization },
    });
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection')
        headers[name] = value;
    });
    res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
  });
  // Far longer than Node's default (5 s), so a process held by a pooled connection shows.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
});
afterAll(async () => {
  front.close();
  await sandbox.close();
});

it('opens the connection while idle, without the key and without spending quota; the first call reuses it', async () => {
  front.seen.length = 0;
  const session = await connectCli(
    scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: front.url }),
  );
  await eventually(() => front.seen.length >= 1, 'the warm-up request');
  const [warm] = front.seen;
  expect(warm).toMatchObject({ method: 'OPTIONS', url: '/', authorized: false });
  // Nothing reached the service's counted API.
  expect(sandbox.requests).toHaveLength(0);

  const result = await session.call('search_models', { vendor: 'openai', limit: 1 });
  expect(result.isError).toBeFalsy();
  expect(front.seen).toHaveLength(2);
  expect(front.seen[1]).toMatchObject({ method: 'GET', authorized: true, port: warm?.port });
  // The quota counted exactly the one call.
  const rateLimit = result._meta?.['modelFeed/rateLimit'] as { remaining: number } | undefined;
  expect(rateLimit?.remaining).toBe(100_000 - 1);
  await session.close();
});

it('never warms up without a key or base URL, and an idle warm server exits when stdin closes, not held by its warm connection', async () => {
  front.seen.length = 0;
  const unset = spawnRaw(scrubbedEnv({ MODEL_FEED_BASE_URL: front.url }));
  unset.send(INITIALIZE);
  await unset.answer(0);
  unset.send(INITIALIZED);
  await new Promise((r) => setTimeout(r, 500));
  expect(front.seen).toHaveLength(0);
  unset.child.stdin.end();
  await unset.exited;

  const warm = spawnRaw(scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: front.url }));
  warm.send(INITIALIZE);
  await warm.answer(0);
  warm.send(INITIALIZED);
  await eventually(() => front.seen.length >= 1, 'the warm-up request');
  await new Promise((r) => setTimeout(r, 100));
  const before = performance.now();
  warm.child.stdin.end();
  const exit = await warm.exited;
  // A pooled connection left open would hold the process for the front's 60 s keep-alive.
  expect(exit.at - before).toBeLessThan(30_000);
});
