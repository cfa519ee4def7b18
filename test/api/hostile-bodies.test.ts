/**
 * What a hostile or broken service can send the REST client, and what comes out: bounded work,
 * the key blanked, faults named as what they are. msw in front of the client, as in client.test.ts.
 */

import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../../src/api/body-limits.js';
import { DEFAULT_CACHE_MAX_BYTES, ReadCache } from '../../src/api/cache.js';
import { describeError } from '../../src/describe-error.js';
import { UnexpectedResponseError } from '../../src/errors.js';
import {
  changeEvent,
  changesPage,
  failure,
  model,
  modelsPage,
  recordRequests,
  TEST_BASE,
  testApiClient,
} from '../fixtures.js';

const BASE = TEST_BASE;
const KEY = 'mfsk_hostile_0123456789abcdef';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  server.events.removeAllListeners();
});
afterAll(() => server.close());

function serveModels(body: unknown, init?: ResponseInit) {
  server.use(
    http.get(`${BASE}/api/v1/models`, () =>
      typeof body === 'string' ? new HttpResponse(body, init) : HttpResponse.json(body as object, init),
    ),
  );
}

describe('bounded work on a body, not only its bytes', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'a pass-through field nested 4,500 deep',
      `{"items":[],"total":0,"extra":${'['.repeat(4500)}0${']'.repeat(4500)}}`,
      /nested more than 32 levels deep/,
    ],
    [
      '900k tiny items',
      { items: Array.from({ length: 900_000 }, () => 0), total: 1 },
      /a list of 900000 entries, more than the 10000 allowed/,
    ],
    ['a 5 MB title', modelsPage([model({ name: 'x'.repeat(5_000_000) })]), /a string of 5000000 characters/],
    [
      'an object of 5,000 fields',
      modelsPage([model(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, i])))]),
      /an object of \d+ fields, more than the 1000 allowed/,
    ],
  ];
  for (const [name, body, detail] of cases) {
    it(`refuses ${name} as an unexpected response, after one attempt`, async () => {
      const seen = recordRequests(server);
      serveModels(body);
      const error = await failure(testApiClient(KEY).listModels({}));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(describeError(error)).toMatch(detail);
      expect(describeError(error)).toMatch(/^Unexpected response from the service/);
      expect(seen).toHaveLength(1);
    });
  }

  it('parses 10,000 catalog items, the most the limits allow, in slices', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: `v/m${i}` }));
    serveModels({ items, total: 10_000 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const page = await testApiClient(KEY)
      .listModels({})
      .finally(() => clearInterval(ticker));
    expect(page.items).toHaveLength(10_000);
    expect(page.items[9999]).toMatchObject({ id: 'v/m9999', pricing: null });
    // The event loop ran between slices: timers fired while the answer was being checked.
    expect(ticks).toBeGreaterThan(3);
  });

  it('names the entry that failed in a sliced parse by its index in the whole list', async () => {
    const items: unknown[] = Array.from({ length: 3_000 }, (_, i) => ({ id: `v/m${i}` }));
    items[2_500] = { name: 'no id' };
    serveModels({ items, total: 3_000 });
    expect(describeError(await failure(testApiClient(KEY).listModels({})))).toContain('items.2500.id');
  });
});

describe('the key never comes back out', () => {
  it('blanks the key where the service echoes it: values, keys, nested, error text and tier header', async () => {
    const echoed = model({
      name: `stolen ${KEY}`,
      [`field_${KEY}`]: 1,
      nested: { deep: [KEY, { again: `x${KEY}y` }] },
    });
    serveModels(modelsPage([echoed]), { headers: { 'x-service-tier': KEY, 'x-ratelimit-limit': '1000' } });
    const api = testApiClient(KEY);
    const page = await api.listModels({});
    const text = JSON.stringify(page);
    expect(text).not.toContain(KEY);
    expect(page.items[0]).toMatchObject({
      name: 'stolen [redacted]',
      nested: { deep: ['[redacted]', { again: 'x[redacted]y' }] },
    });
    expect(page.items[0]).toHaveProperty('field_[redacted]', 1);
    expect(JSON.stringify(api.rateLimit)).not.toContain(KEY);
    expect(api.rateLimit?.tier).toBeNull();
  });

  it('an Error body quoting the key with escape sequences is quoted back clean, on one line', async () => {
    server.use(
      http.get(`${BASE}/api/v1/models`, () =>
        HttpResponse.json({ error: `bad key ${KEY}\n\x1b[2J\x1b]0;owned\x07 fake line` }, { status: 401 }),
      ),
    );
    const text = describeError(await failure(testApiClient(KEY).listModels({})));
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/[\x00-\x1f]/);
    expect(text).toContain('bad key [redacted]');
  });
});

describe('faults named as what they are', () => {
  it('parses JSON that starts with a byte-order mark', async () => {
    serveModels(`\uFEFF${JSON.stringify(modelsPage([model()]))}`, {
      headers: { 'content-type': 'application/json' },
    });
    expect((await testApiClient(KEY).listModels({})).items).toHaveLength(1);
  });

  it('an invalid Location is a protocol error from the service, sent once, not "could not reach"', async () => {
    const seen = recordRequests(server);
    server.use(
      http.get(
        `${BASE}/api/v1/models`,
        () => new HttpResponse(null, { status: 302, headers: { location: 'http://[bad' } }),
      ),
    );
    const error = await failure(testApiClient(KEY).listModels({}));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(describeError(error)).toContain('redirect with an invalid Location');
    expect(describeError(error)).not.toMatch(/could not reach/i);
    expect(seen).toHaveLength(1);
  });
});

describe('requests mean exactly what was asked', () => {
  it('model "openai&since=5" and {model: "openai", since: 5} never share a request', async () => {
    const seen = recordRequests(server);
    server.use(
      http.get(`${BASE}/api/v1/changes`, async ({ request }) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const model = new URL(request.url).searchParams.get('model');
        return HttpResponse.json(changesPage([changeEvent({ title: `for ${model}` })], 10));
      }),
    );
    const api = testApiClient(KEY);
    const [injected, real] = await Promise.all([
      api.listChanges({ model: 'openai&since=5' }),
      api.listChanges({ model: 'openai', since: 5 }),
    ]);
    expect(seen).toHaveLength(2);
    expect(injected.items[0]?.title).toBe('for openai&since=5');
    expect(real.items[0]?.title).toBe('for openai');
  });

  it('two identical reads in flight with such values are still coalesced into one', async () => {
    const seen = recordRequests(server);
    server.use(http.get(`${BASE}/api/v1/changes`, () => HttpResponse.json(changesPage([changeEvent()], 1))));
    const api = testApiClient(KEY);
    await Promise.all([api.listChanges({ model: 'a&b=c' }), api.listChanges({ model: 'a&b=c' })]);
    expect(seen).toHaveLength(1);
  });

  for (const id of ['.', '..']) {
    it(`a catalog id of "${id}" cannot change the request path: nothing is sent`, async () => {
      const seen = recordRequests(server);
      server.use(http.get(`${BASE}/api/v1/history`, () => HttpResponse.json({ id: 'wrong', points: [] })));
      const error = await failure(testApiClient(KEY).getPriceHistory(id));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(describeError(error)).toContain('would change the request path');
      expect(seen).toHaveLength(0);
    });
  }
});

describe('the read cache is bounded by bytes', () => {
  it('evicts the oldest entries past its byte budget, and keeps nothing larger than the budget', async () => {
    const cache = new ReadCache(Date.now, 1000);
    const load = (bytes: number) => async () => ({ value: bytes, bytes });
    for (let i = 0; i < 10; i++) await cache.read(`k${i}`, 60_000, load(300));
    expect(cache.bytes).toBe(900);
    await cache.read('huge', 60_000, load(5000));
    expect(cache.bytes).toBe(900);
    // The three newest survive: no new load for them, a new load for an evicted one.
    let loads = 0;
    const counting = async () => {
      loads++;
      return { value: 0, bytes: 300 };
    };
    for (const key of ['k7', 'k8', 'k9']) await cache.read(key, 60_000, counting);
    expect(loads).toBe(0);
    await cache.read('k0', 60_000, counting);
    expect(loads).toBe(1);
  });
});

describe('the default read cache: 32 MiB of counted size', () => {
  it('keeps entries counted up to 32 MiB in all and evicts the oldest past it (sizes as declared, nothing allocated)', async () => {
    expect(DEFAULT_CACHE_MAX_BYTES).toBe(32 * 1024 * 1024);
    const cache = new ReadCache();
    const eighth = DEFAULT_CACHE_MAX_BYTES / 8;
    for (let i = 0; i < 8; i++) await cache.read(`k${i}`, 60_000, async () => ({ value: i, bytes: eighth }));
    expect(cache.bytes).toBe(DEFAULT_CACHE_MAX_BYTES);
    await cache.read('one more byte', 60_000, async () => ({ value: 0, bytes: 1 }));
    expect(cache.bytes).toBe(DEFAULT_CACHE_MAX_BYTES - eighth + 1);
  });

  it('the API client as the runtime builds it (no bound given) counts each answer as twice its body', async () => {
    // About 1.1 MB: 11 strings at the longest a body may hold, so the body limits let it through.
    const body = JSON.stringify({
      ...modelsPage([model()]),
      pad: Array.from({ length: 11 }, () => 'x'.repeat(BODY_LIMITS.maxStringLength)),
    });
    const kept = Math.floor(DEFAULT_CACHE_MAX_BYTES / (2 * body.length));
    expect(kept).toBe(15);
    let requests = 0;
    server.use(
      http.get(`${BASE}/api/v1/models`, () => {
        requests++;
        return new HttpResponse(body, { headers: { 'content-type': 'application/json' } });
      }),
    );
    const api = testApiClient(KEY);
    // One answer more than fits: the first one read goes.
    for (let i = 0; i <= kept; i++) await api.listModels({ vendor: `v${i}` });
    expect(requests).toBe(kept + 1);
    for (let i = 1; i <= kept; i++) await api.listModels({ vendor: `v${i}` });
    expect(requests).toBe(kept + 1);
    await api.listModels({ vendor: 'v0' });
    expect(requests).toBe(kept + 2);
  });
});

describe('redaction that cannot be slipped past', () => {
  it('a key that a quoted snippet would cut in two is hidden whole, not half shown', async () => {
    const page = `${'x'.repeat(71)} ${KEY} and more text after it`;
    server.use(
      http.get(
        `${BASE}/api/v1/models`,
        () => new HttpResponse(page, { headers: { 'content-type': 'text/html' } }),
      ),
    );
    const text = describeError(await failure(testApiClient(KEY).listModels({})));
    expect(text).toContain('not JSON');
    expect(text).not.toContain('mfsk_');
  });

  it('a short key (a test value such as "openai") is hidden in messages but never rewrites the data', async () => {
    serveModels(modelsPage([model({ id: 'openai/gpt-4o' })]));
    const page = await testApiClient('openai').listModels({});
    expect(page.items[0]?.id).toBe('openai/gpt-4o');
  });
});

describe('a refused page of changes still names its first change', () => {
  function serveChanges(body: unknown) {
    server.use(http.get(`${BASE}/api/v1/changes`, () => HttpResponse.json(body as object)));
  }

  it('past the body limits: the first id and the page latest come with the error, at no extra request', async () => {
    const requests = recordRequests(server);
    serveChanges(changesPage([changeEvent({ id: 'evt-huge', title: 'x'.repeat(150_000) })], 1_700_000_002));
    const error = await failure(testApiClient(KEY).readChanges({ since: 1_700_000_001, limit: 1 }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).glimpse).toEqual({
      firstId: 'evt-huge',
      detectedAt: changeEvent().detectedAt,
      latest: 1_700_000_002,
      items: 1,
    });
    expect(requests).toHaveLength(1);
  });

  it('not the documented shape: the same', async () => {
    serveChanges(changesPage([{ ...changeEvent({ id: 'evt-odd' }), eventType: 42 }], 1_700_000_002));
    const error = (await failure(
      testApiClient(KEY).readChanges({ since: 1, limit: 1 }),
    )) as UnexpectedResponseError;
    expect(error.glimpse?.firstId).toBe('evt-odd');
  });

  it('an id that is not a plain id (spaces, control characters, the key) is not passed on', async () => {
    for (const id of ['evt 1; rm -rf ~', 'evt-\u001b[2J', KEY, 'x'.repeat(200)]) {
      serveChanges(changesPage([changeEvent({ id, title: 'x'.repeat(150_000) })], 5));
      const error = (await failure(
        testApiClient(KEY).readChanges({ since: 1, limit: 1 }),
      )) as UnexpectedResponseError;
      expect(error.glimpse?.firstId, id).toBeUndefined();
      expect(error.glimpse?.latest).toBe(5);
    }
  });
});
