/**
 * What a watcher says about each change: new, or an update of one it delivered (and what moved),
 * and rejected when the service rejected it. Remembered across runs through the state file, and
 * within a run where nothing is saved (--sandbox). The built CLI against the sandbox.
 */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { eventually, scrubbedEnv, spawnRaw } from './harness.js';
import {
  ENVELOPE_KEYS,
  type Envelope,
  envelopes,
  feedIds,
  runWatch,
  tempDir,
  verifyStandardWebhook,
  watchEnv,
} from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const pendingIds = (delivered: Envelope[]) =>
  delivered.filter((e) => e.data.verificationStatus === 'pending').map((e) => e.data.id);

describe('watch marks each change new or an update', () => {
  it('across runs, from the state file: the update names what moved and its value before; a rejected one says so', async () => {
    const dir = tempDir();
    const json = join(dir, 'json.json');
    const text = join(dir, 'text.json');
    const expected = await feedIds(sandbox);

    const first = await runWatch(['--once', '--since', '0', '--state', json], watchEnv(sandbox));
    expect(first.code, first.stderr).toBe(0);
    const delivered = envelopes(first.stdout);
    expect(delivered.map((e) => e.data.id)).toEqual(expected);
    for (const envelope of delivered) {
      expect(Object.keys(envelope)).toEqual(ENVELOPE_KEYS);
      expect(envelope).toMatchObject({ delivery: 'new', changed: [], previous: {}, rejected: false });
    }
    const firstText = await runWatch(
      ['--once', '--since', '0', '--format', 'text', '--state', text],
      watchEnv(sandbox),
    );
    expect(firstText.code, firstText.stderr).toBe(0);
    const firstLines = firstText.stdout.trimEnd().split('\n');
    expect(firstLines).toHaveLength(expected.length);
    expect(firstLines.every((line) => line.startsWith('[new] '))).toBe(true);

    // The state file remembers what was delivered, within its bound.
    expect(JSON.parse(readFileSync(json, 'utf8')).remembered).toHaveLength(expected.length);

    const [confirmed, rejected] = pendingIds(delivered);
    sandbox.setVerification(confirmed as string, 'official');
    sandbox.setVerification(rejected as string, 'rejected');

    const second = await runWatch(['--once', '--state', json], watchEnv(sandbox));
    expect(second.code, second.stderr).toBe(0);
    const updates = envelopes(second.stdout);
    expect(updates.map((e) => e.data.id)).toEqual([confirmed, rejected]);
    // The log does not count them as new either.
    expect(second.stderr).toMatch(
      /--once: 2 changes, 2 of them updates of changes delivered before; cursor \d+\n/,
    );
    expect(updates[0]).toMatchObject({
      delivery: 'update',
      changed: ['verificationStatus'],
      previous: { verificationStatus: 'pending' },
      rejected: false,
      data: { verificationStatus: 'official' },
    });
    expect(updates[1]).toMatchObject({
      delivery: 'update',
      changed: ['verificationStatus'],
      previous: { verificationStatus: 'pending' },
      rejected: true,
      data: { verificationStatus: 'rejected' },
    });

    const secondText = await runWatch(['--once', '--format', 'text', '--state', text], watchEnv(sandbox));
    expect(secondText.code, secondText.stderr).toBe(0);
    const lines = secondText.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[update: verification pending → official\] \d{4}-\d\d-\d\d /);
    expect(lines[1]).toMatch(
      /^\[REJECTED, not a real change; update: verification pending → rejected\] \d{4}-\d\d-\d\d /,
    );
  });

  it('within one --sandbox run, where nothing is saved: every change once, then its update marked as one', async () => {
    // The in-process sandbox publishes once per --interval; with its fixed seed, the eighth
    // publication verifies a change of the data set, which this run delivered on its first poll.
    const watcher = spawnRaw(scrubbedEnv(), [
      'watch',
      '--sandbox',
      '--since',
      '0',
      '--interval',
      '1',
      '--format',
      'json',
    ]);
    try {
      await eventually(
        () => envelopes(watcher.stdout()).some((e) => e.delivery === 'update'),
        'an update of a change delivered earlier in the run',
        90_000,
      );
      watcher.child.kill('SIGTERM');
      expect((await watcher.exited).code, watcher.stderr()).toBe(0);
      const delivered = envelopes(watcher.stdout());
      // No duplicates: no delivery twice, and an id again only as an update that says what moved.
      expect(new Set(delivered.map((e) => e.deliveryId)).size).toBe(delivered.length);
      const seen = new Set<string>();
      for (const envelope of delivered) {
        expect(envelope.delivery).toBe(seen.has(envelope.data.id) ? 'update' : 'new');
        if (envelope.delivery === 'update') {
          expect(envelope.changed).toContain('verificationStatus');
          expect(envelope.previous.verificationStatus).toBe('pending');
        }
        seen.add(envelope.data.id);
      }
      // Nor on stderr: the in-process sandbox's own news of what it published stays out of the log,
      // so a person at the terminal sees each change once, as its delivered line.
      for (const envelope of delivered) expect(watcher.stderr()).not.toContain(envelope.data.id);
      expect(watcher.stderr()).not.toMatch(/published (price_change|verification|new_model)/);
    } finally {
      watcher.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('sinks carry the marking', () => {
  it('a signed webhook, an exec command and an Atom feed each get the update and the rejection marked', async () => {
    const dir = tempDir();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const bodies: { body: string; verified: boolean }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        bodies.push({ body, verified: verifyStandardWebhook(secret, req.headers, body) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    // A sandbox of its own: no change in it was verified by another test.
    const fresh = await startSandbox({ tier: 'pro' });
    const env = watchEnv(fresh, { MODEL_FEED_WEBHOOK_SECRET: secret });
    const script = `printf '%s %s %s %s\\n' "$MODEL_FEED_EVENT_ID" "$MODEL_FEED_DELIVERY" "$MODEL_FEED_CHANGED" "$MODEL_FEED_REJECTED" >> ${join(dir, 'env.txt')}`;
    const sinks = {
      webhook: ['--webhook', hook],
      exec: ['--exec', script],
      atom: ['--atom', join(dir, 'feed.atom')],
    };
    try {
      // Every pending change so far, delivered to each sink as new.
      const all = await runWatch(['--once', '--since', '0', '--state', join(dir, 'probe.json')], env);
      const pending = pendingIds(envelopes(all.stdout));
      expect(pending.length).toBeGreaterThanOrEqual(2);
      for (const [name, flags] of Object.entries(sinks)) {
        const run = await runWatch(
          ['--once', '--since', '0', '--state', join(dir, `${name}.json`), ...flags],
          env,
        );
        expect(run.code, run.stderr).toBe(0);
      }
      const [confirmed, rejected] = pending.slice(-2) as [string, string];
      fresh.setVerification(confirmed, 'official');
      fresh.setVerification(rejected, 'rejected');
      bodies.length = 0;
      for (const [name, flags] of Object.entries(sinks)) {
        const run = await runWatch(['--once', '--state', join(dir, `${name}.json`), ...flags], env);
        expect(run.code, run.stderr).toBe(0);
      }

      expect(bodies.every((b) => b.verified)).toBe(true);
      const hooked = bodies.map((b) => JSON.parse(b.body) as Envelope);
      expect(hooked.map((e) => [e.data.id, e.delivery, e.changed, e.rejected])).toEqual([
        [confirmed, 'update', ['verificationStatus'], false],
        [rejected, 'update', ['verificationStatus'], true],
      ]);

      const execLines = readFileSync(join(dir, 'env.txt'), 'utf8').trimEnd().split('\n');
      expect(execLines.slice(-2)).toEqual([
        `${confirmed} update verificationStatus false`,
        `${rejected} update verificationStatus true`,
      ]);
      expect(execLines.slice(0, -2).every((line) => line.endsWith(' new  false'))).toBe(true);

      const atom = readFileSync(join(dir, 'feed.atom'), 'utf8');
      const titles = [...atom.matchAll(/<title type="text">([^<]*)<\/title>/g)].map((m) => m[1]);
      expect(titles[1]).toMatch(/^\[REJECTED, not a real change; update: verification pending → rejected\] /);
      expect(titles[2]).toMatch(/^\[update: verification pending → official\] /);
      expect(titles.slice(3).every((title) => title?.startsWith('[new] '))).toBe(true);
      expect(atom).toContain('<category scheme="urn:model-feed:delivery" term="update"/>');
    } finally {
      server.closeAllConnections();
      server.close();
      await fresh.close();
    }
  }, 60_000);
});
