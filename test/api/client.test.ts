import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiClientOptions } from '../../src/api/client.js';
import { describeError } from '../../src/describe-error.js';
import {
  AbortedError,
  AuthError,
  FeedContractError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
} from '../../src/errors.js';
import { readPageAfter } from '../../src/feed/follower.js';
import {
  changeEvent,
  changesPage,
  model,
  modelsPage,
  recordRequests,
  TEST_BASE,
  testApiClient,
} from '../fixtures.js';

const BASE = TEST_BASE;
const KEY = 'mfsk_test_0123456789abcdef';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** Every request msw saw, in order. */

function client(overrides: Partial<ApiClientOptions> = {}) {
  return testApiClient(KEY, { random: () => 0, ...overrides });
}

const rateHeaders = { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '998', 'x-service-tier': 'free' };

describe('REST client: requests and parsing', () => {
  afterEach(() => server.events.removeAllListeners());

  it('sends the query, bearer key and user agent to /api/v1/changes and parses the page', async () => {
    const seen = recordRequests(server);
    server.use(
      http.get(`${BASE}/api/v1/changes`, () =>
        HttpResponse.json(changesPage([changeEvent()], 1700000000), { headers: rateHeaders }),
      ),
    );
    const page = await client().listChanges({ since: 0, type: 'price_change', model: 'open ai', limit: 2 });
    expect(page.items).toHaveLength(1);
    expect(page.latest).toBe(1700000000);
    const url = new URL(seen[0]!.url);
    expect(url.pathname).toBe('/api/v1/changes');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      since: '0',
      type: 'price_change',
      model: 'open ai',
      limit: '2',
    });
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers.get('user-agent')).toBe('model-feed-mcp/test');
  });

  it('omits absent query parameters instead of sending "undefined"', async () => {
    const seen = recordRequests(server);
    server.use(http.get(`${BASE}/api/v1/changes`, () => HttpResponse.json(changesPage([], null))));
    await client().listChanges({});
    expect(new URL(seen[0]!.url).search).toBe('');
  });

  it('keeps unknown fields and unknown enum values, and fills missing optional fields with null', async () => {
    const event = { ...changeEvent(), eventType: 'license_change', extraField: { nested: true } } as Record<
      string,
      unknown
    >;
    delete event.summary;
    delete event.publishedAt;
    server.use(
      http.get(`${BASE}/api/v1/changes`, () =>
        HttpResponse.json({ ...changesPage([event], 5), serverNote: 'hi' }),
      ),
    );
    const page = await client().listChanges({});
    expect(page.items[0]).toMatchObject({
      eventType: 'license_change',
      extraField: { nested: true },
      summary: null,
      publishedAt: null,
    });
    expect(page).toMatchObject({ serverNote: 'hi' });
  });

  it('a paging cursor of the wrong type fails the answer instead of ending paging early', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => HttpResponse.json({ items: [], nextCursor: '17', latest: 5 })),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('nextCursor');
  });

  it('changes after since whose latest does not move past it fail the answer, naming the host and request', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => HttpResponse.json(changesPage([changeEvent()], 1700000000))),
    );
    // Through the follower, as `watch` reads the feed: the check is the client's, whoever reads.
    const error = await readPageAfter(client(), 1700000000, {}, new AbortController().signal).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FeedContractError);
    const text = describeError(error);
    expect(text).toMatch(
      /^The answer of the service at feed\.test to GET \/api\/v1\/changes\?since=1700000000&limit=\d+ breaks the change feed's contract: latest: 1700000000 does not move past since=1700000000 although 1 change came\. The cursor stays at 1700000000/,
    );
    // Without since (newest first) latest is no cursor to move: the same page is fine.
    await expect(client().readChanges({ limit: 1 })).resolves.toBeDefined();
  });

  it('reads an optional field of the wrong type as null; a required one fails the answer', async () => {
    const odd = model({ contextLength: '128k', pricing: 'free', huggingfaceId: 42 });
    server.use(http.get(`${BASE}/api/v1/models`, () => HttpResponse.json(modelsPage([odd]))));
    const page = await client().listModels({});
    expect(page.items[0]).toMatchObject({
      id: 'openai/gpt-4o',
      contextLength: null,
      pricing: null,
      huggingfaceId: null,
    });

    server.use(http.get(`${BASE}/api/v1/models`, () => HttpResponse.json(modelsPage([model({ id: 7 })]))));
    const error = await client()
      .listModels({ vendor: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('items.0.id');
  });

  it('reads the rate-limit headers of every response', async () => {
    server.use(
      http.get(`${BASE}/api/v1/models`, () =>
        HttpResponse.json(modelsPage([model()]), { headers: rateHeaders }),
      ),
    );
    const api = client();
    expect(api.rateLimit).toBeUndefined();
    await api.listModels({});
    expect(api.rateLimit).toMatchObject({ limit: 1000, remaining: 998, tier: 'free' });
  });

  it('encodes the history slug so no id can change the path', async () => {
    const seen = recordRequests(server);
    server.use(
      http.get(`${BASE}/api/v1/models/:slug/history`, () =>
        HttpResponse.json({ id: 'x', currency: 'USD', unit: 'per 1M tokens', since: 1, points: [] }),
      ),
    );
    await client().getPriceHistory('a/b c?d=1/../../x');
    // Every "/" became "_" before encoding, so ".." can never form a path segment.
    expect(new URL(seen[0]!.url).pathname).toBe('/api/v1/models/a_b%20c%3Fd%3D1_.._.._x/history');
  });
});

describe('REST client: HTTP errors', () => {
  it('401 becomes AuthError with the service text, and the message says how to get a key', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, () =>
        HttpResponse.json({ error: 'API key revoked' }, { status: 401 }),
      ),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    const text = describeError(error);
    expect(text).toContain('API key revoked');
    expect(text).toContain('MODEL_FEED_API_KEY');
    expect(text).toContain('account screen');
    expect(text).not.toContain(KEY);
  });

  it('a 403 is not blamed on the key: it points at a proxy or filter', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, () =>
        HttpResponse.html('<h1>Blocked by corporate web filter</h1>', { status: 403 }),
      ),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    const text = describeError(error);
    expect(text).toContain('Access refused (HTTP 403 from feed.test for /api/v1/changes)');
    expect(text).toContain('a proxy or web filter may be blocking feed.test');
    expect(text).not.toContain('Create a new key');
  });

  it('a 404 outside the history endpoint says the base URL is wrong, with the full path', async () => {
    server.use(
      http.get(`${BASE}/feed/api/v1/changes`, () =>
        HttpResponse.json({ error: 'no route' }, { status: 404 }),
      ),
    );
    const error = await client({ baseUrl: `${BASE}/feed` })
      .listChanges({})
      .catch((e: unknown) => e);
    expect(describeError(error)).toBe(
      "Nothing at feed.test/feed/api/v1/changes (HTTP 404): no route. MODEL_FEED_BASE_URL must be the service's base URL, without /api/v1 or /api/mcp.",
    );
  });

  it('never repeats the key, even when the service quotes it', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, () =>
        HttpResponse.json({ error: `unknown key ${KEY}` }, { status: 401 }),
      ),
      http.get(`${BASE}/api/v1/models`, () => HttpResponse.text(`key=${KEY} is not allowed here`)),
    );
    const rejected = describeError(
      await client()
        .listChanges({})
        .catch((e: unknown) => e),
    );
    const garbled = describeError(
      await client()
        .listModels({})
        .catch((e: unknown) => e),
    );
    for (const text of [rejected, garbled]) {
      expect(text).not.toContain(KEY);
      expect(text).toContain('[redacted]');
    }
  });

  it('404 on history becomes NotFoundError', async () => {
    server.use(
      http.get(`${BASE}/api/v1/models/:slug/history`, () =>
        HttpResponse.json({ error: 'no such model' }, { status: 404 }),
      ),
    );
    await expect(client().getPriceHistory('x/y')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('429 is reported with tier, limit and retry time, and remembered: no request until retry-after passes', async () => {
    let now = Date.parse('2026-11-22T23:00:00Z');
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/*`, () => {
        hits++;
        return HttpResponse.json(
          { error: 'daily limit exceeded' },
          {
            status: 429,
            headers: {
              'retry-after': '3600',
              'x-ratelimit-limit': '1000',
              'x-ratelimit-remaining': '0',
              'x-service-tier': 'free',
            },
          },
        );
      }),
    );
    const api = client({ now: () => now });
    const first = await api.listChanges({}).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RateLimitError);
    expect(describeError(first)).toBe(
      'Daily limit reached for the free tier (1000 calls per day). Retry in 3600 s, at 2026-11-23T00:00:00Z. Higher limits are raised on request.',
    );
    now += 600_000;
    const second = await api.listModels({ vendor: 'openai' }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(RateLimitError);
    expect((second as RateLimitError).fromMemory).toBe(true);
    expect(describeError(second)).toContain('Retry in 3000 s, at 2026-11-23T00:00:00Z');
    expect(describeError(second)).toContain('No request was sent');
    expect(hits).toBe(1);
    now += 3_000_000;
    await api.listChanges({}).catch(() => {});
    expect(hits).toBe(2);
  });

  it('retries 503 twice then succeeds: one result, three requests', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => {
        hits++;
        return hits < 3
          ? new HttpResponse('busy', { status: 503 })
          : HttpResponse.json(changesPage([changeEvent()], 9));
      }),
    );
    const page = await client().listChanges({});
    expect(page.latest).toBe(9);
    expect(hits).toBe(3);
  });

  it('does not retry a 500, and says what failed', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => {
        hits++;
        return HttpResponse.json({ error: 'boom' }, { status: 500 });
      }),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(hits).toBe(1);
    expect(describeError(error)).toContain('HTTP 500 from feed.test');
    expect(describeError(error)).toContain('after 1 attempt');
  });

  it('gives up after 3 attempts on network errors and says so', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => {
        hits++;
        return HttpResponse.error();
      }),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(hits).toBe(3);
    expect(describeError(error)).toMatch(/Could not reach feed\.test: .* after 3 attempts/);
  });

  it('bounds a hung upstream by the timeout, retries included', async () => {
    server.use(
      http.get(`${BASE}/api/v1/changes`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const error = await client({ timeoutMs: 1000 })
      .listChanges({})
      .catch((e: unknown) => e);
    // The answer never comes: only the timeout ends the call, or the test's own bound fails it.
    expect(error).toBeInstanceOf(TimeoutError);
    expect(describeError(error)).toContain('within 1000 ms');
  });

  it('bounds the wait for a free connection by the same timeout', async () => {
    // A fetch that ignores its abort signal keeps the only slot for good; the call queued behind it
    // must still end when its own time is up, without ever being sent.
    let sent = 0;
    const api = client({
      timeoutMs: 300,
      maxConcurrent: 1,
      fetch: () => {
        sent++;
        return new Promise(() => {});
      },
    });
    void api.listChanges({ since: 1 });
    const error = await api.listChanges({ since: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(describeError(error)).toMatch(
      /^No connection to feed\.test came free within 300 ms: .* never sent\. Try again shortly/,
    );
    expect(sent).toBe(1);
  });

  it('a call whose time ran out while queued is not sent when a connection frees up', async () => {
    let now = 0;
    let answer!: (response: Response) => void;
    const fetches: string[] = [];
    const api = client({
      now: () => now,
      timeoutMs: 60_000,
      maxConcurrent: 1,
      fetch: (url) => {
        fetches.push(url);
        return new Promise<Response>((resolve) => {
          answer = resolve;
        });
      },
    });
    const first = api.listChanges({ since: 1 });
    const queued = api.listChanges({ since: 2 }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fetches).toHaveLength(1));
    now += 60_001;
    answer(HttpResponse.json(changesPage([], null)));
    await first;
    const error = await queued;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).request.attempts).toBe(0);
    expect(fetches).toHaveLength(1);
  });

  it('a body that is not JSON is an unexpected response, not a crash', async () => {
    server.use(http.get(`${BASE}/api/v1/changes`, () => HttpResponse.html('<html>Proxy login</html>')));
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('Unexpected response from the service');
    expect(describeError(error)).toContain('not JSON (text/html');
  });

  it('a body of the wrong shape names the field', async () => {
    server.use(http.get(`${BASE}/api/v1/models`, () => HttpResponse.json({ items: [{ id: 42 }], total: 1 })));
    const error = await client()
      .listModels({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('items.0.id');
  });

  it('refuses a body over the cap', async () => {
    server.use(http.get(`${BASE}/api/v1/changes`, () => HttpResponse.text('x'.repeat(5000))));
    const error = await client({ maxBodyBytes: 1024 })
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('larger than');
  });

  it('does not follow a redirect to another origin with the key', async () => {
    const seen = recordRequests(server);
    server.use(
      http.get(
        `${BASE}/api/v1/changes`,
        () => new HttpResponse(null, { status: 302, headers: { location: 'https://evil.test/steal' } }),
      ),
      http.get('https://evil.test/steal', () => HttpResponse.json(changesPage([], null))),
    );
    const error = await client()
      .listChanges({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('another origin');
    expect(seen.map((r) => new URL(r.url).host)).toEqual(['feed.test']);
    server.events.removeAllListeners();
  });

  it('follows a redirect within the same origin', async () => {
    server.use(
      http.get(
        `${BASE}/api/v1/changes`,
        () => new HttpResponse(null, { status: 307, headers: { location: '/api/v1/changes2' } }),
      ),
      http.get(`${BASE}/api/v1/changes2`, ({ request }) =>
        HttpResponse.json(
          changesPage([], request.headers.get('authorization') === `Bearer ${KEY}` ? 1 : null),
        ),
      ),
    );
    const page = await client().listChanges({});
    expect(page.latest).toBe(1);
  });
});

describe('REST client: cache, coalescing, cancellation, concurrency', () => {
  it('serves repeated catalog reads from the cache within the TTL', async () => {
    let now = 0;
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/models`, () => {
        hits++;
        return HttpResponse.json(modelsPage([model()]));
      }),
    );
    const api = client({ now: () => now, cacheTtlMs: 60_000 });
    await api.listModels({ vendor: 'openai' });
    await api.listModels({ vendor: 'openai' });
    expect(hits).toBe(1);
    await api.listModels({ vendor: 'google' });
    expect(hits).toBe(2);
    now += 60_001;
    await api.listModels({ vendor: 'openai' });
    expect(hits).toBe(3);
  });

  it('shares one request among 20 identical concurrent reads', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/models`, async () => {
        hits++;
        await delay(50);
        return HttpResponse.json(modelsPage([model()]));
      }),
    );
    const api = client({ cacheTtlMs: 0 });
    const pages = await Promise.all(Array.from({ length: 20 }, () => api.listModels({})));
    expect(pages).toHaveLength(20);
    expect(hits).toBe(1);
  });

  it('never serves the change feed from the cache', async () => {
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/changes`, () => {
        hits++;
        return HttpResponse.json(changesPage([], hits));
      }),
    );
    const api = client();
    expect((await api.listChanges({ since: 0 })).latest).toBe(1);
    expect((await api.listChanges({ since: 0 })).latest).toBe(2);
  });

  it('a cancelled caller leaves a shared request running for the others; the last one aborts it', async () => {
    let aborted = 0;
    let hits = 0;
    server.use(
      http.get(`${BASE}/api/v1/models`, async ({ request }) => {
        hits++;
        request.signal.addEventListener('abort', () => aborted++);
        await delay(300);
        return HttpResponse.json(modelsPage([model()]));
      }),
    );
    const api = client({ cacheTtlMs: 0 });
    const a = new AbortController();
    const b = new AbortController();
    const first = api.listModels({}, a.signal);
    const second = api.listModels({}, b.signal);
    const third = api.listModels({});
    a.abort();
    await expect(first).rejects.toBeInstanceOf(AbortedError);
    await expect(third).resolves.toMatchObject({ total: 1 });
    await expect(second).resolves.toMatchObject({ total: 1 });
    expect(hits).toBe(1);
    expect(aborted).toBe(0);

    const c = new AbortController();
    const lone = api.listModels({}, c.signal);
    await delay(20);
    c.abort();
    await expect(lone).rejects.toBeInstanceOf(AbortedError);
    await delay(20);
    expect(aborted).toBe(1);
  });

  it('caps concurrent upstream requests', async () => {
    let active = 0;
    let peak = 0;
    server.use(
      http.get(`${BASE}/api/v1/changes`, async () => {
        active++;
        peak = Math.max(peak, active);
        await delay(30);
        active--;
        return HttpResponse.json(changesPage([], null));
      }),
    );
    const api = client({ maxConcurrent: 4 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => api.listChanges({ since: i })));
    expect(peak).toBe(4);
  });
});
