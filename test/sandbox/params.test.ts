import { describe, expect, it } from 'vitest';
import { parseChangesQuery, parseModelsQuery } from '../../src/sandbox/params.js';

const changes = (query: string) => parseChangesQuery(new URLSearchParams(query));
const models = (query: string) => parseModelsQuery(new URLSearchParams(query));

function errorOf(result: { ok: true } | { ok: false; error: string }): string {
  if (result.ok) throw new Error('expected an error');
  return result.error;
}

describe('parseChangesQuery', () => {
  it('defaults limit to 20 and leaves the rest unset', () => {
    expect(changes('')).toEqual({
      ok: true,
      value: { since: undefined, before: undefined, limit: 20, type: undefined, model: undefined },
    });
  });

  it('reads every parameter and ignores unknown ones', () => {
    expect(changes('since=0&before=1782864000&limit=100&type=price_change&model=openai&x=1')).toEqual({
      ok: true,
      value: { since: 0, before: 1782864000, limit: 100, type: 'price_change', model: 'openai' },
    });
    expect(changes('limit=1')).toMatchObject({ ok: true, value: { limit: 1 } });
  });

  it.each([
    ['limit=0', 'limit', 'an integer from 1 to 100', '"0"'],
    ['limit=101', 'limit', 'an integer from 1 to 100', '"101"'],
    ['limit=2.5', 'limit', 'an integer from 1 to 100', '"2.5"'],
    ['limit=ten', 'limit', 'an integer from 1 to 100', '"ten"'],
    ['since=-1', 'since', 'an integer >= 0 (Unix seconds)', '"-1"'],
    ['since=1.5', 'since', 'an integer >= 0', '"1.5"'],
    ['since=1e3', 'since', 'an integer >= 0', '"1e3"'],
    ['since=99999999999999999999', 'since', 'an integer >= 0', '"99999999999999999999"'],
    ['before=-5', 'before', 'an integer >= 0', '"-5"'],
    [
      'type=launch',
      'type',
      'one of new_model, price_change, api_change, open_source_surge, deprecation',
      '"launch"',
    ],
    ['model=', 'model', 'a non-empty vendor slug', '""'],
    ['since=', 'since', 'an integer >= 0', '""'],
  ])('%s → names the parameter, what is allowed and the value', (query, name, allowed, value) => {
    const error = errorOf(changes(query));
    expect(error).toContain(`"${name}"`);
    expect(error).toContain(allowed);
    expect(error).toContain(value);
  });

  it('refuses a repeated parameter instead of picking one', () => {
    expect(errorOf(changes('since=1&since=2'))).toMatch(/"since".*once, got 2 values/);
  });

  it('shortens a very long value in the message', () => {
    expect(errorOf(changes(`type=${'x'.repeat(500)}`)).length).toBeLessThan(250);
  });
});

describe('parseModelsQuery', () => {
  it('reads vendor, maxInputPrice and minContext', () => {
    expect(models('vendor=OpenAI&maxInputPrice=0.5&minContext=128000')).toEqual({
      ok: true,
      value: { vendor: 'OpenAI', maxInputPrice: 0.5, minContext: 128000 },
    });
    expect(models('maxInputPrice=.5')).toMatchObject({ value: { maxInputPrice: 0.5 } });
    expect(models('maxInputPrice=3')).toMatchObject({ value: { maxInputPrice: 3 } });
  });

  it.each([
    ['maxInputPrice=cheap', 'maxInputPrice', 'a number >= 0'],
    ['maxInputPrice=-1', 'maxInputPrice', 'a number >= 0'],
    ['maxInputPrice=0x10', 'maxInputPrice', 'a number >= 0'],
    ['maxInputPrice=Infinity', 'maxInputPrice', 'a number >= 0'],
    ['minContext=-1', 'minContext', 'an integer >= 0'],
    ['minContext=1.5', 'minContext', 'an integer >= 0'],
    ['vendor=', 'vendor', 'a non-empty vendor namespace'],
  ])('%s → 400 naming the parameter', (query, name, allowed) => {
    const error = errorOf(models(query));
    expect(error).toContain(`"${name}"`);
    expect(error).toContain(allowed);
  });
});
