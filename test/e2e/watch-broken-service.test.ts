/**
 * `watch` against a service that misbehaves, end to end: the built CLI and a loopback stub on port
 * 0. An outage before the first poll, a `latest` that breaks the cursor contract, service text that
 * would forge lines, an item too large to read.
 */

import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, spawnRaw } from './harness.js';
import { tempDir, watchEnv } from './watch-support.js';

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

function change(id: string, detectedAt = '2026-11-23T10:00:00Z'): Record<string, unknown> {
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
