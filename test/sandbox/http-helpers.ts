import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/service.js';
import type { ChangeEvent, Model, PriceHistory } from '../../src/sandbox/types.js';

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface FeedPageBody {
  items: ChangeEvent[];
  nextCursor: number | null;
  latest: number | null;
}

export interface ModelListBody {
  items: Model[];
  total: number;
}

export interface ErrorBody {
  error: string;
}

export type { PriceHistory };

/** A request with the sandbox's key, another key, or (null) no Authorization header at all. */
export async function call<T = unknown>(
  sandbox: Sandbox,
  path: string,
  options: { key?: string | null; method?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? sandbox.key : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${sandbox.url}${path}`, { method: options.method ?? 'GET', headers });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
  };
}

export function rateLimitHeaders(headers: Headers) {
  return {
    limit: headers.get('x-ratelimit-limit'),
    remaining: headers.get('x-ratelimit-remaining'),
    tier: headers.get('x-service-tier'),
  };
}

const nullOr = (check: (value: unknown) => void) => (value: unknown) => {
  if (value !== null) check(value);
};
const isString = (value: unknown) => expect(typeof value).toBe('string');
const isInteger = (value: unknown) => expect(Number.isInteger(value)).toBe(true);
const isNumber = (value: unknown) => expect(Number.isFinite(value)).toBe(true);
const isUri = (value: unknown) => expect(() => new URL(String(value))).not.toThrow();
const isDateTime = (value: unknown) =>
  expect(String(value)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
const isUuid = (value: unknown) =>
  expect(String(value)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

function expectFields(value: object, checks: Record<string, (value: unknown) => void>): void {
  expect(Object.keys(value).sort()).toEqual(Object.keys(checks).sort());
  for (const [name, check] of Object.entries(checks)) check((value as Record<string, unknown>)[name]);
}

/** Every field of service.md's ChangeEvent, with its type. */
export function expectChangeEvent(event: ChangeEvent): void {
  expectFields(event, {
    id: isUuid,
    eventType: (value) =>
      expect(['new_model', 'price_change', 'api_change', 'open_source_surge', 'deprecation']).toContain(
        value,
      ),
    title: isString,
    summary: nullOr(isString),
    beforeValue: nullOr(isString),
    afterValue: nullOr(isString),
    sourceUrl: nullOr(isUri),
    sourceName: isString,
    verificationStatus: (value) => expect(['official', 'pending', 'rejected']).toContain(value),
    official: (value) => expect(value).toBe(event.verificationStatus === 'official'),
    detectedAt: isDateTime,
    publishedAt: nullOr(isDateTime),
    model: (value) =>
      expectFields(value as object, {
        slug: isString,
        name: isString,
        company: isString,
        accentColor: isString,
      }),
  });
}

/** Every field of service.md's Model, with its type. */
export function expectModel(model: Model): void {
  expectFields(model, {
    id: (value) => expect(String(value)).toMatch(/^[^/]+\/[^/]+$/),
    name: isString,
    displayName: isString,
    vendor: isString,
    type: (value) => expect(['commercial', 'open_source']).toContain(value),
    pricing: (value) =>
      expectFields(value as object, {
        inputPerMillion: nullOr(isNumber),
        outputPerMillion: nullOr(isNumber),
      }),
    contextLength: nullOr(isInteger),
    listedAt: nullOr(isInteger),
    huggingfaceId: nullOr(isString),
    attention: (value) =>
      expectFields(value as object, {
        rank: isInteger,
        score: isNumber,
        newsCount: isInteger,
        opinions: isInteger,
      }),
    url: isUri,
  });
}

/** Every field of service.md's price history, with its type. */
export function expectPriceHistory(history: PriceHistory): void {
  expectFields(history, {
    id: isString,
    currency: isString,
    unit: isString,
    since: nullOr(isInteger),
    points: (value) => {
      expect(Array.isArray(value)).toBe(true);
      for (const point of value as object[]) {
        expectFields(point, {
          inputPrice: nullOr(isNumber),
          outputPrice: nullOr(isNumber),
          observedAt: isInteger,
        });
      }
    },
  });
}
