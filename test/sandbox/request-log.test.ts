import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRequestLog,
  REQUEST_LOG_LIMITS,
  type RecordedRequest,
  recordedBytes,
} from '../../src/sandbox/app.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { call } from './http-helpers.js';

const BOUND_BYTES = REQUEST_LOG_LIMITS.bytes;

/** The text a recorded request holds, one byte a character: a floor under what it costs in memory. */
function textBytes(request: RecordedRequest): number {
  const fields = [...Object.entries(request.query), ...Object.entries(request.headers)];
  return (
    request.method.length +
    request.path.length +
    fields.reduce((sum, [name, value]) => sum + name.length + [value ?? ''].flat().join('').length, 0)
  );
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

describe('request log', () => {
  it('records nothing a caller sends without a valid key', async () => {
    sandbox.clearRequests();
    const big = { 'x-filler': 'a'.repeat(8000) };
    await call(sandbox, '/api/v1/changes?since=1', { key: null, headers: big });
    await call(sandbox, '/api/v1/models', { key: 'mfsk_wrong_key_0123456789', headers: big });
    await call(sandbox, '/api/v1/models', { key: null, headers: { ...big, authorization: 'Basic abc' } });
    await call(sandbox, '/nowhere', { key: null });
    expect(sandbox.requests).toEqual([]);

    await call(sandbox, '/api/v1/models?vendor=openai');
    expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([
      ['/api/v1/models', { vendor: 'openai' }],
    ]);
  });

  it('stays within its byte bound under many large authenticated requests, keeping the newest', async () => {
    sandbox.clearRequests();
    const sent = 200;
    const filler = 'b'.repeat(14_000); // just under Node's 16 KiB header limit
    for (let i = 0; i < sent; i++) {
      await call(sandbox, `/api/v1/changes?since=${i}`, { headers: { 'x-filler': filler } });
    }
    expect(sent * filler.length).toBeGreaterThan(BOUND_BYTES);
    const kept = sandbox.requests;
    expect(kept.length).toBeLessThan(sent);
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.reduce((sum, r) => sum + textBytes(r), 0)).toBeLessThanOrEqual(BOUND_BYTES);
    expect(kept.reduce((sum, r) => sum + recordedBytes(r), 0)).toBeLessThanOrEqual(BOUND_BYTES);
    // The oldest went first: what is left is the most recent run, in order.
    expect(kept.map((r) => r.query.since)).toEqual(
      Array.from({ length: kept.length }, (_, i) => String(sent - kept.length + i)),
    );
  });
});

describe('createRequestLog', () => {
  const request = (i: number, filler = ''): RecordedRequest => ({
    method: 'GET',
    path: '/api/v1/changes',
    query: { since: String(i) },
    headers: { 'x-filler': filler },
    time: i,
  });
  const times = (log: { entries: RecordedRequest[] }) => log.entries.map((r) => r.time);

  it('drops the oldest past the count limit', () => {
    const log = createRequestLog({ requests: 3, bytes: 1e9 });
    for (let i = 0; i < 5; i++) log.add(request(i));
    expect(times(log)).toEqual([2, 3, 4]);
  });

  it('drops the oldest past the byte limit, and keeps the sum it is held to', () => {
    const size = recordedBytes(request(0, 'x'.repeat(1000)));
    const log = createRequestLog({ requests: 1000, bytes: size * 3 });
    for (let i = 0; i < 10; i++) log.add(request(i, 'x'.repeat(1000)));
    expect(times(log)).toEqual([7, 8, 9]);
    expect(log.bytes).toBe(log.entries.reduce((sum, r) => sum + recordedBytes(r), 0));
    expect(log.bytes).toBeLessThanOrEqual(size * 3);
  });

  it('keeps the newest request even when it alone is over the byte limit', () => {
    const log = createRequestLog({ requests: 10, bytes: 100 });
    log.add(request(0));
    log.add(request(1, 'x'.repeat(500)));
    expect(times(log)).toEqual([1]);
  });

  it('clear empties the entries in place and resets the count of bytes', () => {
    const log = createRequestLog({ requests: 10, bytes: 10_000 });
    const view = log.entries;
    log.add(request(0));
    log.clear();
    expect(view).toEqual([]);
    expect(log.bytes).toBe(0);
    log.add(request(1));
    expect(view.map((r) => r.time)).toEqual([1]);
  });

  it('counts text a byte a character plus a slot per field, repeated query values included', () => {
    const small = recordedBytes({ method: 'GET', path: '/', query: {}, headers: {}, time: 0 });
    const repeated = recordedBytes({
      method: 'GET',
      path: '/',
      query: { type: ['a', 'bb'] },
      headers: {},
      time: 0,
    });
    expect(repeated - small).toBe('type'.length + 'a'.length + 'bb'.length + 3 * 64);
  });
});
