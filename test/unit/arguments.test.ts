import { describe, expect, it } from 'vitest';
import { InvalidArgumentsError } from '../../src/errors.js';
import { listTools } from '../../src/mcp-server.js';
import { parseArguments } from '../../src/tools/arguments.js';
import { getModel } from '../../src/tools/get-model.js';
import { toJsonSchema } from '../../src/tools/json-schema.js';
import { listModelChanges } from '../../src/tools/list-model-changes.js';
import { searchModels } from '../../src/tools/search-models.js';

function parse(tool: typeof listModelChanges | typeof getModel | typeof searchModels, raw: unknown) {
  return parseArguments(tool.name, tool.input(), toJsonSchema(tool.input(), 'input'), raw);
}

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentsError);
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('tool arguments', () => {
  it('accepts valid arguments, and numbers sent as strings', () => {
    expect(parse(listModelChanges, { since: '0', limit: ' 5 ', type: 'deprecation' })).toEqual({
      since: 0,
      limit: 5,
      type: 'deprecation',
    });
    expect(parse(listModelChanges, undefined)).toEqual({});
  });

  it('trims ids', () => {
    expect(parse(getModel, { id: '  openai/gpt-4o ' })).toEqual({ id: 'openai/gpt-4o' });
  });

  it('names the argument, the value given and what is allowed', () => {
    expect(message(() => parse(listModelChanges, { limit: 500 }))).toBe(
      'Invalid arguments for list_model_changes: "limit" is 500; allowed: an integer from 1 to 100.',
    );
    expect(message(() => parse(listModelChanges, { since: -1 }))).toBe(
      'Invalid arguments for list_model_changes: "since" is -1; allowed: an integer >= 0.',
    );
    expect(message(() => parse(listModelChanges, { type: 'rumour' }))).toBe(
      'Invalid arguments for list_model_changes: "type" is "rumour"; allowed: one of new_model, price_change, api_change, open_source_surge, deprecation.',
    );
    expect(message(() => parse(searchModels, { maxInputPrice: 'cheap' }))).toBe(
      'Invalid arguments for search_models: "maxInputPrice" is "cheap"; allowed: a number >= 0.',
    );
    expect(message(() => parse(listModelChanges, { limit: 2.5 }))).toContain(
      '"limit" is 2.5; allowed: an integer from 1 to 100',
    );
  });

  it('reports missing and unknown arguments', () => {
    expect(message(() => parse(getModel, {}))).toBe(
      'Invalid arguments for get_model: missing required argument "id": a non-empty string of at most 200 characters.',
    );
    expect(message(() => parse(searchModels, { query: 'gpt' }))).toBe(
      'Invalid arguments for search_models: unknown argument "query"; search_models takes vendor, maxInputPrice, minContext, limit.',
    );
  });

  it('reads own, plain argument names only: a prototype is never an argument', () => {
    // As JSON.parse builds it: "__proto__" is an own key there, and must not become a prototype.
    expect(message(() => parse(searchModels, JSON.parse('{"__proto__": {"vendor": "x"}}')))).toBe(
      'Invalid arguments for search_models: unknown argument "__proto__"; search_models takes vendor, maxInputPrice, minContext, limit.',
    );
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__']) {
      expect(message(() => parse(searchModels, JSON.parse(`{"${name}": {"vendor": "x"}}`)))).toBe(
        `Invalid arguments for search_models: unknown argument "${name}"; search_models takes vendor, maxInputPrice, minContext, limit.`,
      );
    }
    // An in-process caller's object: what it inherits is not what it says.
    expect(parse(searchModels, Object.create({ vendor: 'x' }))).toEqual({});
    expect(message(() => parse(getModel, Object.create({ id: 'openai/gpt-4o' })))).toContain(
      'missing required argument "id"',
    );
  });

  it("says a number beyond JSON's range is out of range, not null", () => {
    // JSON.parse reads 1e400 as Infinity, which JSON.stringify would write back as null.
    expect(message(() => parse(listModelChanges, JSON.parse('{"since": 1e400}')))).toBe(
      'Invalid arguments for list_model_changes: "since" is a number out of range (Infinity); allowed: an integer >= 0.',
    );
    expect(message(() => parse(listModelChanges, { since: Number.NEGATIVE_INFINITY }))).toBe(
      'Invalid arguments for list_model_changes: "since" is a number out of range (-Infinity); allowed: an integer >= 0.',
    );
    expect(message(() => parse(searchModels, { maxInputPrice: Number.NaN }))).toBe(
      'Invalid arguments for search_models: "maxInputPrice" is not a number (NaN); allowed: a number >= 0.',
    );
  });

  it('shortens a very long value in the message', () => {
    const text = message(() => parse(getModel, { id: 'x'.repeat(100_000) }));
    expect(text.length).toBeLessThan(300);
    expect(text).toContain('(100002 characters)');
  });

  it('shortens and escapes an unknown argument name in the message', () => {
    const text = message(() => parse(getModel, { id: 'x/y', [`a\n${'k'.repeat(10_000)}`]: 1 }));
    expect(text.length).toBeLessThan(300);
    expect(text).toContain('unknown argument "a\\nkkk');
    expect(text).not.toContain('\n');
    expect(message(() => parse(getModel, { id: 'x/y', 'a\u202eb': 1 }))).toContain(
      'unknown argument "a\\u202eb"',
    );
  });

  it('refuses arguments that are not an object', () => {
    expect(message(() => parse(getModel, ['openai/gpt-4o']))).toContain(
      'expected an object of named arguments',
    );
  });
});

describe('tool listings', () => {
  it('are three read-only tools with clean, portable schemas', () => {
    const tools = listTools();
    expect(tools.map((t) => t.name)).toEqual(['list_model_changes', 'get_model', 'search_models']);
    for (const tool of tools) {
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: true,
      });
      expect(tool.outputSchema?.type).toBe('object');
      const json = JSON.stringify(tool);
      expect(json).not.toContain('$schema');
      expect(json).not.toContain('9007199254740991');
      expect(json).not.toContain('"additionalProperties":{}');
      expect(json).not.toMatch(/"type":\[/);
    }
  });
});
