import type { ModelFilter } from '../service-rules/catalog-filter.js';
import type { FeedQuery } from '../service-rules/feed-query.js';
import { EVENT_TYPES, type EventType } from './types.js';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

class InvalidParameter extends Error {}

const MAX_QUOTED_VALUE = 80;

function reject(name: string, expected: string, value: string): never {
  const shown = value.length > MAX_QUOTED_VALUE ? `${value.slice(0, MAX_QUOTED_VALUE)}…` : value;
  throw new InvalidParameter(
    `Invalid parameter "${name}": expected ${expected}, got ${JSON.stringify(shown)}.`,
  );
}

/** The parameter's only value; a repeated or empty parameter is an error, not a silent choice. */
function single(params: URLSearchParams, name: string, expected: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) {
    throw new InvalidParameter(
      `Invalid parameter "${name}": expected ${expected} once, got ${values.length} values.`,
    );
  }
  const value = values[0];
  if (value === '') reject(name, expected, value);
  return value;
}

function integer(params: URLSearchParams, name: string, min: number, max: number, expected: string) {
  const text = single(params, name, expected);
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) reject(name, expected, text);
  return value;
}

function nonNegativeNumber(params: URLSearchParams, name: string, expected: string) {
  const text = single(params, name, expected);
  if (text === undefined) return undefined;
  // Plain decimal notation only: Number() would also take "", "0x10" and "Infinity".
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) reject(name, expected, text);
  return value;
}

function eventType(params: URLSearchParams): EventType | undefined {
  const expected = `one of ${EVENT_TYPES.join(', ')}`;
  const text = single(params, 'type', expected);
  if (text === undefined) return undefined;
  return EVENT_TYPES.find((candidate) => candidate === text) ?? reject('type', expected, text);
}

function parse<T>(read: () => T): ParseResult<T> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof InvalidParameter) return { ok: false, error: error.message };
    throw error;
  }
}

const UNIX_SECONDS = 'an integer >= 0 (Unix seconds)';

/** Query of GET /api/v1/changes. Unknown parameters are ignored. */
export function parseChangesQuery(params: URLSearchParams): ParseResult<FeedQuery> {
  return parse(() => ({
    since: integer(params, 'since', 0, Number.MAX_SAFE_INTEGER, UNIX_SECONDS),
    before: integer(params, 'before', 0, Number.MAX_SAFE_INTEGER, UNIX_SECONDS),
    limit: integer(params, 'limit', 1, MAX_LIMIT, `an integer from 1 to ${MAX_LIMIT}`) ?? DEFAULT_LIMIT,
    type: eventType(params),
    model: single(params, 'model', 'a non-empty vendor slug'),
  }));
}

/** Query of GET /api/v1/models. Unknown parameters are ignored. */
export function parseModelsQuery(params: URLSearchParams): ParseResult<ModelFilter> {
  return parse(() => ({
    vendor: single(params, 'vendor', 'a non-empty vendor namespace'),
    maxInputPrice: nonNegativeNumber(params, 'maxInputPrice', 'a number >= 0 (USD per 1M input tokens)'),
    minContext: integer(params, 'minContext', 0, Number.MAX_SAFE_INTEGER, 'an integer >= 0 (tokens)'),
  }));
}
