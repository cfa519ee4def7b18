/**
 * The public origins standing in on a loopback port, each under a path of its own (the catalog at
 * `/api/v1`, models.dev at `/models-dev`, …): it serves whatever the test sets (an answer, pages, a
 * status) and records every request, so a test checks both what the runner answered and what it
 * asked.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OriginRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface StubOrigin {
  /** e.g. http://127.0.0.1:41234/api/v1: what MODEL_FEED_OPENROUTER_URL is set to. */
  readonly url: string;
  /** The server's root, e.g. http://127.0.0.1:41234: other origins live below it. */
  readonly root: string;
  readonly requests: OriginRequest[];
  /** Answers `GET {path}?{query}` (below /api/v1, or from the root when it starts with `//`) with JSON `body`. */
  serve(pathAndQuery: string, body: unknown): void;
  /** Every request answers this status with a small text body until `serve` is called again. */
  fail(status: number): void;
  /** Requests for this path never get an answer (until the stub closes). */
  hang(pathAndQuery: string): void;
  close(): Promise<void>;
}

export async function startStubOrigin(): Promise<StubOrigin> {
  const answers = new Map<string, unknown>();
  const hanging = new Set<string>();
  let failure: number | undefined;
  const requests: OriginRequest[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const path = req.url ?? '';
    const key = path.startsWith('/api/v1/') ? path.slice('/api/v1'.length) : `/${path}`;
    if (hanging.has(key)) return;
    if (failure !== undefined) {
      res.writeHead(failure, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    if (!answers.has(key)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers.get(key)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    root: `http://127.0.0.1:${port}`,
    requests,
    serve(pathAndQuery, body) {
      failure = undefined;
      answers.set(pathAndQuery, body);
    },
    fail(status) {
      failure = status;
    },
    hang(pathAndQuery) {
      hanging.add(pathAndQuery);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
