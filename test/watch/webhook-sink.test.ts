/**
 * The webhook sink over real loopback sockets, with the production fetch (node:http directly, and
 * the same client over CONNECT tunnels through a forwarding proxy), against a receiver that verifies signatures the way the
 * Standard Webhooks specification tells receivers to.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/api/schemas.js';
import { describeError } from '../../src/describe-error.js';
import { ConfigError, DeliveryError } from '../../src/errors.js';
import { envelopeJson } from '../../src/feed/envelope.js';
import { createNetworkFetch, type NetworkFetch } from '../../src/net/fetch.js';
import { changeLine } from '../../src/text/change-line.js';
import type { MarkedDelivery } from '../../src/watch/news.js';
import {
  createWebhookSink,
  parseWebhookUrl,
  type WebhookSinkOptions,
  webhookLabel,
} from '../../src/watch/sinks/webhook.js';
import { parseWebhookSecret } from '../../src/watch/webhook-signature.js';
import { changeEvent, failure } from '../fixtures.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { newDelivery } from './marked.js';

const { ChangeEvent: ChangeEventSchema } = apiSchemas();

const SECRET_TEXT = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECRET = parseWebhookSecret(SECRET_TEXT);
/** Shaped like Slack's: the token is the last segment of the path, and must never be shown. */
const TOKEN = 'XoXoT0k3nShouldNeverBeSh0wn42';
const PATH = `/services/T0001/B0002/${TOKEN}`;

// ---------------------------------------------------------------------------------------------
// A receiver's verification, written from the specification rather than from the sink's code.

const TOLERANCE_S = 5 * 60;

/** Verifies a delivery as Standard Webhooks tells receivers to; returns why not, or 'ok'. */
function verifyStandardWebhook(secret: Buffer, headers: IncomingHttpHeaders, body: string, nowSec: number) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    return 'missing headers';
  }
  if (!/^\d+$/.test(timestamp)) return 'bad timestamp';
  if (Math.abs(nowSec - Number(timestamp)) > TOLERANCE_S) return 'timestamp outside tolerance';
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest();
  // A space-separated list (several during a secret rotation): any one valid v1 signature will do.
  const valid = signatures.split(' ').some((entry) => {
    const [version, encoded] = entry.split(',');
    if (version !== 'v1' || !encoded) return false;
    const given = Buffer.from(encoded, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return valid ? 'ok' : 'no matching signature';
}

describe('the test’s own verifier', () => {
  it('accepts the published test vector and refuses it tampered with or stale', () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,bm9wZQ== v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const body = '{"test": 2432232314}';
    expect(verifyStandardWebhook(SECRET, headers, body, 1614265330)).toBe('ok');
    expect(verifyStandardWebhook(SECRET, headers, '{"test": 2432232315}', 1614265330)).toBe(
      'no matching signature',
    );
    expect(verifyStandardWebhook(SECRET, headers, body, 1614265330 + TOLERANCE_S + 1)).toBe(
      'timestamp outside tolerance',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The receiver.

interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

type Respond = (res: ServerResponse, received: Received) => void;

let server: FaultServer;
let network: NetworkFetch;
let received: Received[];

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers every request with `respond`, after recording it, body included. */
function receiver(respond: Respond): void {
  received = [];
  server.setHandler(async (req, res) => {
    const entry = { method: req.method, path: req.url, headers: req.headers, body: await readAll(req) };
    received.push(entry);
    respond(res, entry);
  });
}

const status =
  (code: number, body = '', headers: Record<string, string> = {}): Respond =>
  (res) =>
    res.writeHead(code, { 'content-type': 'text/plain', ...headers }).end(body);

beforeAll(async () => {
  server = await startFaultServer((_req, res) => {
    res.end();
  });
  network = createNetworkFetch(undefined, 2);
});
afterAll(async () => {
  await network.close();
  await server.close();
});
beforeEach(() => receiver(status(200, 'ok')));

function delivery(overrides: Record<string, unknown> = {}): MarkedDelivery {
  const data = changeEvent(overrides);
  return newDelivery(data, ChangeEventSchema.parse(data), new Date('2026-01-02T03:04:05.678Z'));
}

function sink(options: Partial<WebhookSinkOptions> = {}) {
  return createWebhookSink({
    url: parseWebhookUrl(`${server.url}${PATH}`),
    format: 'standard',
    secret: SECRET,
    fetch: network.fetch,
    timeoutMs: 2000,
    userAgent: 'model-feed-mcp/test',
    ...options,
  });
}

const signal = () => new AbortController().signal;

async function deliveryError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

/** Nothing of the URL past scheme://host, and nothing a terminal would act on. */
function expectSafe(message: string): void {
  expect(message).not.toContain(TOKEN);
  expect(message).not.toContain('/services');
  expect(message).not.toContain('T0001');
  expect(message).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
}

// ---------------------------------------------------------------------------------------------

describe('the standard format', () => {
  it('POSTs the envelope, signed so that a Standard Webhooks receiver verifies it', async () => {
    const change = delivery();
    await sink().deliver(change, signal());
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(PATH);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('model-feed-mcp/test');
    // Sent whole, with its length: some receivers and gateways refuse a chunked POST.
    expect(request?.headers['transfer-encoding']).toBeUndefined();
    expect(Number(request?.headers['content-length'])).toBe(Buffer.byteLength(request?.body ?? ''));
    expect(request?.body).toBe(envelopeJson(change.envelope));
    expect(JSON.parse(request?.body ?? '')).toEqual(change.envelope);
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      type: 'model_feed.change',
      timestamp: '2026-01-02T03:04:05.678Z',
      deliveryId: change.envelope.deliveryId,
      data: changeEvent(),
    });
    expect(request?.headers['webhook-id']).toBe(change.envelope.deliveryId);
    const nowSec = Math.floor(Date.now() / 1000);
    expect(verifyStandardWebhook(SECRET, request?.headers ?? {}, request?.body ?? '', nowSec)).toBe('ok');
    // And with another secret, it does not verify.
    const other = Buffer.alloc(24, 1);
    expect(verifyStandardWebhook(other, request?.headers ?? {}, request?.body ?? '', nowSec)).toBe(
      'no matching signature',
    );
  });

  it('keeps the webhook-id across attempts; the timestamp and signature are new for each', async () => {
    let clock = 1_700_000_000_500;
    const webhook = sink({ now: () => clock });
    const change = delivery();
    await webhook.deliver(change, signal());
    clock += 61_000;
    await webhook.deliver(change, signal());
    const [first, second] = received;
    expect(first?.headers['webhook-timestamp']).toBe('1700000000');
    expect(second?.headers['webhook-timestamp']).toBe('1700000061');
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.headers['webhook-signature']).not.toBe(first?.headers['webhook-signature']);
    expect(verifyStandardWebhook(SECRET, first?.headers ?? {}, first?.body ?? '', 1700000000)).toBe('ok');
    expect(verifyStandardWebhook(SECRET, second?.headers ?? {}, second?.body ?? '', 1700000061)).toBe('ok');
  });

  it('sends a header-safe webhook-id for an event id no header could carry', async () => {
    const change = delivery({ id: 'evt\nwith\u00e9 newline' });
    await sink().deliver(change, signal());
    const id = received[0]?.headers['webhook-id'] ?? '';
    expect(id).toMatch(/^sha256_[0-9a-f]{32}$/);
    expect(JSON.parse(received[0]?.body ?? '').deliveryId).toBe(change.envelope.deliveryId);
    await sink().deliver(change, signal());
    expect(received[1]?.headers['webhook-id']).toBe(id);
    const nowSec = Math.floor(Date.now() / 1000);
    expect(verifyStandardWebhook(SECRET, received[0]?.headers ?? {}, received[0]?.body ?? '', nowSec)).toBe(
      'ok',
    );
  });

  it('accepts any 2xx, reading at most 64 KiB of a large answer', async () => {
    receiver(status(204));
    await sink().deliver(delivery(), signal());
    receiver(status(202, 'x'.repeat(1024 * 1024)));
    await sink().deliver(delivery(), signal());
    // The connection is still fine for the next change.
    receiver(status(200, 'ok'));
    await sink().deliver(delivery(), signal());
    expect(received).toHaveLength(1);
  });

  it('refuses to be built without a secret', () => {
    expect(() => sink({ secret: undefined })).toThrow(ConfigError);
    expect(() => sink({ secret: undefined })).toThrow(/MODEL_FEED_WEBHOOK_SECRET/);
  });

  it('has a label without the path', () => {
    expect(sink().label).toBe(`webhook ${server.url}/…`);
  });
});

describe('the slack format', () => {
  it('POSTs {"text": <the one-line rendering>}, unsigned without a secret', async () => {
    const change = delivery();
    await sink({ format: 'slack', secret: undefined }).deliver(change, signal());
    const [request] = received;
    expect(JSON.parse(request?.body ?? '')).toEqual({ text: `[new] ${changeLine(change.event)}` });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-signature']).toBeUndefined();
  });

  it('signs it too when a secret is set', async () => {
    await sink({ format: 'slack' }).deliver(delivery(), signal());
    const [request] = received;
    const nowSec = Math.floor(Date.now() / 1000);
    expect(verifyStandardWebhook(SECRET, request?.headers ?? {}, request?.body ?? '', nowSec)).toBe('ok');
  });

  it('escapes what Slack reads as markup and defuses mentions, on one line', async () => {
    const change = delivery({
      title: 'Price <!channel> & <https://evil.test|click> @here\n\x1b[2Jfake line',
    });
    await sink({ format: 'slack', secret: undefined }).deliver(change, signal());
    const { text } = JSON.parse(received[0]?.body ?? '') as { text: string };
    expect(text).toContain('Price &lt;!channel&gt; &amp; &lt;https://evil.test|click&gt; @\u2060here');
    expect(text).not.toMatch(/[<>\n\x1b]/);
    expect(text).not.toContain('@here');
  });
});

describe('failures', () => {
  it('a 500 is retryable, and says the status and the receiver’s reason', async () => {
    receiver(status(500, 'database is down'));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expect(error.permanent).toBe(false);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toBe(`webhook ${server.url}/… answered HTTP 500: "database is down".`);
    expect(describeError(error)).toBe(error.message);
  });

  it('408, 502, 503 and 504 are retryable too', async () => {
    for (const code of [408, 502, 503, 504]) {
      receiver(status(code));
      const error = await deliveryError(sink().deliver(delivery(), signal()));
      expect(error.permanent).toBe(false);
      expect(error.message).toContain(`HTTP ${code}`);
    }
  });

  it('a 429 with retry-after: 3 is retryable after 3000 ms', async () => {
    receiver(status(429, 'slow down', { 'retry-after': '3' }));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expect(error.permanent).toBe(false);
    expect(error.retryAfterMs).toBe(3000);
    expect(error.message).toContain('HTTP 429: "slow down". It asked for a retry after 3 s.');
  });

  it('a 503 with retry-after as a date is honoured too', async () => {
    const now = Date.parse('2026-01-02T03:04:05Z');
    receiver(status(503, '', { 'retry-after': 'Fri, 02 Jan 2026 03:05:05 GMT' }));
    const error = await deliveryError(sink({ now: () => now }).deliver(delivery(), signal()));
    expect(error.retryAfterMs).toBe(60_000);
  });

  it.each([
    [400, /did not accept the body: .*--webhook-format slack/],
    [401, /same secret as MODEL_FEED_WEBHOOK_SECRET/],
    [404, /Check --webhook: nothing there takes these changes\./],
    [410, /nothing there takes these changes any more/],
    [413, /same answer/],
  ])('a %i is a permanent failure', async (code, hint) => {
    receiver(status(code, 'nope'));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expect(error.permanent).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toContain(`refused the change: HTTP ${code}: "nope".`);
    expect(error.message).toMatch(hint);
    expectSafe(error.message);
  });

  it('a redirect is not followed, and is a permanent failure', async () => {
    receiver(status(302, '', { location: `https://elsewhere.test/hooks/${TOKEN}` }));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expect(error.permanent).toBe(true);
    expect(received).toHaveLength(1);
    expect(error.message).toContain('HTTP 302');
    expect(error.message).toContain('It redirects to https://elsewhere.test, and webhooks do not follow');
    expectSafe(error.message);
  });

  // A receiver that never answers: without the timeout, the test's own bound fails it.
  it('a receiver that hangs past the timeout is retryable, after the timeout', async () => {
    receiver(() => {}); // never answers
    const started = Date.now();
    const error = await deliveryError(sink({ timeoutMs: 300 }).deliver(delivery(), signal()));
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(error.permanent).toBe(false);
    expect(error.message).toBe(`webhook ${server.url}/… did not answer within 300 ms.`);
  });

  it('a body that stalls after a 5xx status still ends within the timeout', async () => {
    receiver((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const started = Date.now();
    const error = await deliveryError(sink({ timeoutMs: 300 }).deliver(delivery(), signal()));
    // A bound on a hang: the stalled body never ends of itself.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('HTTP 503: "partial"');
  });

  it('a refused connection is retryable', async () => {
    const closed = await startFaultServer((_req, res) => {
      res.end();
    });
    const url = closed.url;
    await closed.close();
    const webhook = sink({ url: parseWebhookUrl(`${url}${PATH}`) });
    const error = await deliveryError(webhook.deliver(delivery(), signal()));
    expect(error.permanent).toBe(false);
    expect(error.message).toBe(`Could not reach webhook ${url}/…: connection refused (ECONNREFUSED).`);
  });

  it('a shutdown during an attempt rejects with the signal’s reason, not a DeliveryError', async () => {
    receiver(() => {});
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const pending = failure(sink().deliver(delivery(), controller.signal));
    await expect.poll(() => received.length).toBe(1);
    controller.abort(reason);
    expect(await pending).toBe(reason);
  });

  it('an aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already stopped'));
    expect(await failure(sink().deliver(delivery(), controller.signal))).toEqual(
      new Error('already stopped'),
    );
    expect(received).toHaveLength(0);
  });

  it('quotes the receiver’s body one line long, without escape sequences or the URL’s path', async () => {
    const hostile = `\x1b[2J\x1b]0;pwned\x07Bad request\r\nfor ${PATH}?x=1 \u202eeulav\x9b31m ${'a'.repeat(500)}`;
    receiver(status(400, hostile));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expectSafe(error.message);
    expect(error.message).not.toContain('pwned');
    expect(error.message).not.toContain('\u202e');
    expect(error.message).toContain('"Bad request for [redacted]?x=1 eulav');
    const quoted = /: "([^"]*)"/.exec(error.message)?.[1] ?? '';
    expect(quoted.length).toBeLessThanOrEqual(201);
    expect(quoted.endsWith('…')).toBe(true);
  });

  it('never quotes the secret back', async () => {
    receiver(status(401, `expected ${SECRET_TEXT}, got something else`));
    const error = await deliveryError(sink().deliver(delivery(), signal()));
    expect(error.message).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  });

  it('flush and close resolve', async () => {
    const webhook = sink();
    await expect(webhook.flush(signal())).resolves.toBeUndefined();
    await expect(webhook.close()).resolves.toBeUndefined();
  });
});

describe('through a forwarding proxy', () => {
  let proxy: TestProxy;
  let proxied: NetworkFetch;
  beforeAll(async () => {
    // A name only the proxy can resolve: the request can only have gone through it.
    proxy = await startProxy({ hosts: { 'receiver.test': '127.0.0.1' } });
    proxied = createNetworkFetch(proxy.url, 2);
  });
  afterAll(async () => {
    await proxied.close();
    await proxy.close();
  });

  it('POSTs the signed body through the tunnel', async () => {
    const port = new URL(server.url).port;
    const change = delivery();
    // Built directly: parseWebhookUrl rightly refuses plain http to a name that is not loopback.
    const url = new URL(`http://receiver.test:${port}${PATH}`);
    await sink({ url, fetch: proxied.fetch }).deliver(change, signal());
    expect(proxy.connects.map((c) => c.target)).toContain(`receiver.test:${port}`);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe(envelopeJson(change.envelope));
    expect(request?.headers['transfer-encoding']).toBeUndefined();
    expect(Number(request?.headers['content-length'])).toBe(Buffer.byteLength(request?.body ?? ''));
    const nowSec = Math.floor(Date.now() / 1000);
    expect(verifyStandardWebhook(SECRET, request?.headers ?? {}, request?.body ?? '', nowSec)).toBe('ok');
  });

  it('reports a 429 and its retry-after the same way', async () => {
    receiver(status(429, '', { 'retry-after': '3' }));
    const url = new URL(`http://receiver.test:${new URL(server.url).port}${PATH}`);
    const error = await deliveryError(sink({ url, fetch: proxied.fetch }).deliver(delivery(), signal()));
    expect(error.retryAfterMs).toBe(3000);
  });
});

describe('parseWebhookUrl', () => {
  it.each([
    'https://hooks.slack.com/services/T0001/B0002/XoXoT0k3n',
    'https://hooks.example.com:8443/model-feed?token=abc',
    'http://localhost:9000/hook',
    'http://127.0.0.1:9000/hook',
    'http://[::1]:9000/hook',
  ])('accepts %s', (raw) => {
    expect(parseWebhookUrl(raw).href).toBe(new URL(raw).href);
  });

  it('trims a pasted value and drops a fragment, which is never sent', () => {
    expect(parseWebhookUrl('  https://hooks.example.com/x#frag \n').href).toBe('https://hooks.example.com/x');
  });

  it.each([
    ['not a URL', `hooks.slack.com${PATH}`, /^--webhook is not a URL \(its value is not shown/],
    ['not http(s)', `ftp://files.example.com${PATH}`, /^--webhook must be an https:\/\/ URL \(got ftp:\)/],
    [
      'plain http off this machine',
      `http://hooks.example.com${PATH}`,
      /must use https:\/\/ to reach http:\/\/hooks\.example\.com: plain http/,
    ],
    ['plain http to a .localhost name', `http://app.localhost${PATH}`, /must use https:\/\//],
    [
      'credentials',
      `https://user:${TOKEN}@hooks.example.com${PATH}`,
      /must not hold a user name or password/,
    ],
  ])('refuses %s without showing its path', (_name, raw, message) => {
    let error: unknown;
    try {
      parseWebhookUrl(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const config = error as ConfigError;
    expect(config.flag).toBe('--webhook');
    expect(config.message).toMatch(message);
    expectSafe(config.message);
  });
});

describe('webhookLabel', () => {
  it('shows scheme and host only', () => {
    expect(webhookLabel(new URL(`https://hooks.slack.com${PATH}`))).toBe('webhook https://hooks.slack.com/…');
    expect(webhookLabel(new URL('https://hooks.example.com/?token=abc'))).toBe(
      'webhook https://hooks.example.com/…',
    );
    expect(webhookLabel(new URL('https://hooks.example.com:8443/'))).toBe(
      'webhook https://hooks.example.com:8443/',
    );
  });
});
