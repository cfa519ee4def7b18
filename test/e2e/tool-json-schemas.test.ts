/**
 * The tools' JSON Schemas as the build made them (`__TOOL_JSON_SCHEMAS__`), held to expectations
 * made without the build's converter (scripts/tool-json-schemas.ts, src/tools/json-schema.ts):
 *
 * - they accept and refuse what zod's own `z.toJSONSchema`, run here, accepts and refuses: argument
 *   values at and past each limit, and the built server's real results with each field changed;
 * - the arguments they accept are those the tool's zod schema accepts;
 * - they name every property and carry every description zod's conversion carries;
 * - they keep the promises the cleaning makes to clients: no `$schema`, one type per `type`, no
 *   empty `additionalProperties`, no ±2^53 integer bounds, no `default: null`.
 *
 * Both copies are held to them: the built server's `tools/list` (what clients read) and the one
 * this test run was given (what the in-process tests list).
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TOOLS } from '../../src/tools/index.js';
import type { JsonSchema } from '../../src/tools/json-schema.js';
import {
  INITIALIZE,
  INITIALIZED,
  type RawProcess,
  request,
  scrubbedEnv,
  spawnRaw,
  toolCall,
} from './harness.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);

interface ToolSchemas {
  input: JsonSchema;
  output: JsonSchema;
}

/** Calls whose results stand for what each tool answers, on the sandbox's sample data. */
const SAMPLE_CALLS: ReadonlyArray<[tool: string, args: Record<string, unknown>]> = [
  ['list_model_changes', { limit: 3 }],
  ['list_model_changes', { since: 0, limit: 2 }],
  ['get_model', { id: 'openai/gpt-4o' }],
  ['get_model', { id: 'openai/gpt-4x' }],
  ['search_models', { vendor: 'openai', limit: 2 }],
];

/**
 * Argument values near the limits the tools set. None is blank or holds a `/`: zod trims strings
 * and refines `model` by code a JSON Schema cannot say, so those differ on purpose. None is past
 * 2^53, the bound the cleaning drops.
 */
const PROBES: readonly unknown[] = [
  0,
  1,
  -1,
  1.5,
  20,
  100,
  101,
  1e15,
  'openai',
  ' gpt-4o ',
  '',
  'a'.repeat(100),
  'a'.repeat(101),
  'a'.repeat(200),
  'a'.repeat(201),
  true,
  null,
  [],
  {},
];

/** What a field of a result is changed into, besides being left out. */
const REPLACEMENTS: readonly unknown[] = ['x', -1, 1.5, null, true, {}, []];

let server: RawProcess;
let built: Record<string, ToolSchemas>;
const results = new Map<string, Record<string, unknown>[]>();

interface ListedTool {
  name: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

beforeAll(async () => {
  server = spawnRaw(scrubbedEnv(), ['--sandbox']);
  server.send(INITIALIZE);
  server.send(INITIALIZED);
  server.send(request(1, 'tools/list'));
  for (const [i, [tool, args]] of SAMPLE_CALLS.entries()) server.send(toolCall(i + 2, tool, args));
  const listing = (await server.answer(1)) as { result: { tools: ListedTool[] } };
  built = Object.fromEntries(
    listing.result.tools.map((tool) => [tool.name, { input: tool.inputSchema, output: tool.outputSchema }]),
  );
  for (const [i, [tool]] of SAMPLE_CALLS.entries()) {
    const answer = (await server.answer(i + 2)) as { result: { structuredContent: Record<string, unknown> } };
    results.set(tool, [...(results.get(tool) ?? []), answer.result.structuredContent]);
  }
});

afterAll(async () => {
  server.child.stdin.end();
  await server.exited;
});

/** zod's own conversion, untouched: the meaning the built schema must keep. */
function zodsOwn(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
}

/** Every property name and description in a schema, sorted: what a model reads of it. */
function annotations(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) annotations(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'description' && typeof value === 'string') found.push(`description: ${value}`);
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) found.push(`property: ${name}`);
      }
      annotations(value, found);
    }
  }
  return found.sort();
}

/** Where a schema breaks a promise the cleaning makes to clients, as paths. */
function unportable(node: unknown, path = '#', found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) unportable(item, `${path}/${i}`, found);
  } else if (typeof node === 'object' && node !== null) {
    const schema = node as JsonSchema;
    if ('$schema' in schema) found.push(`${path}: $schema`);
    if (Array.isArray(schema.type)) found.push(`${path}: type ${JSON.stringify(schema.type)}`);
    const extra = schema.additionalProperties;
    if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0) {
      found.push(`${path}: additionalProperties {}`);
    }
    if (Math.abs(Number(schema.maximum)) === Number.MAX_SAFE_INTEGER) found.push(`${path}: maximum 2^53-1`);
    if (Math.abs(Number(schema.minimum)) === Number.MAX_SAFE_INTEGER)
      found.push(`${path}: minimum -(2^53-1)`);
    if ('default' in schema && schema.default === null) found.push(`${path}: default null`);
    for (const [key, value] of Object.entries(schema)) unportable(value, `${path}/${key}`, found);
  }
  return found;
}

/** `value` with one field left out or replaced, for every field at every depth. */
function variants(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return REPLACEMENTS.filter((r) => r !== value);
  const out: unknown[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      for (const changed of variants(item)) out.push(value.map((v, j) => (j === i ? changed : v)));
    });
  } else {
    for (const [key, field] of Object.entries(value)) {
      const { [key]: _left, ...rest } = value as Record<string, unknown>;
      out.push(rest);
      for (const changed of variants(field)) out.push({ ...rest, [key]: changed });
    }
  }
  return out;
}

/** Which values a schema accepts, as `value → true|false` lines, for a readable diff. */
function verdicts(schema: JsonSchema, values: readonly unknown[]): string[] {
  const validate = ajv.compile(schema);
  return values.map((value) => `${JSON.stringify(value)} → ${validate(value)}`);
}

/** The arguments probed: none, an unknown one, and each argument alone at each probe value. */
function argumentProbes(input: z.ZodType): Record<string, unknown>[] {
  const shape = (input as z.ZodObject).shape;
  const probes: Record<string, unknown>[] = [{}, { unknown: 1 }];
  for (const [name, field] of Object.entries(shape)) {
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    const enumOptions = inner instanceof z.ZodEnum ? inner.options : [];
    for (const value of [...PROBES, ...enumOptions]) probes.push({ [name]: value });
  }
  // get_model requires its id: each probe is tried beside a valid one too.
  return [...probes, ...probes.map((probe) => ({ id: 'openai', ...probe }))];
}

const sources: ReadonlyArray<[string, () => Record<string, ToolSchemas>]> = [
  ["the built server's tools/list", () => built],
  ['this test run', () => JSON.parse(__TOOL_JSON_SCHEMAS__) as Record<string, ToolSchemas>],
];

describe.each(sources)('tool JSON Schemas made at build time: %s', (_source, schemasOf) => {
  it('lists every tool, with both schemas', () => {
    expect(Object.keys(schemasOf()).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    for (const schemas of Object.values(schemasOf())) {
      expect(schemas.input).toMatchObject({ type: 'object' });
      expect(schemas.output).toMatchObject({ type: 'object' });
    }
  });

  describe.each(TOOLS.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    it('arguments: accepted and refused as zod converts and parses them', () => {
      const schema = schemasOf()[name]!.input;
      const probes = argumentProbes(tool.input());
      const parsed = probes.map(
        (value) => `${JSON.stringify(value)} → ${tool.input().safeParse(value).success}`,
      );
      expect(verdicts(schema, probes)).toEqual(verdicts(zodsOwn(tool.input(), 'input'), probes));
      expect(verdicts(schema, probes)).toEqual(parsed);
    });

    it("results: the server's own accepted, each field changed judged as zod's conversion judges it", () => {
      const schema = schemasOf()[name]!.output;
      const samples = results.get(name) ?? [];
      expect(samples.length).toBeGreaterThan(0);
      expect(verdicts(schema, samples)).toEqual(samples.map((s) => `${JSON.stringify(s)} → true`));
      const changed = samples.flatMap(variants);
      expect(verdicts(schema, changed)).toEqual(verdicts(zodsOwn(tool.output(), 'output'), changed));
    });

    it("names and describes what zod's conversion does", () => {
      const schemas = schemasOf()[name]!;
      expect(annotations(schemas.input)).toEqual(annotations(zodsOwn(tool.input(), 'input')));
      expect(annotations(schemas.output)).toEqual(annotations(zodsOwn(tool.output(), 'output')));
    });

    it('keeps the promises the cleaning makes to clients', () => {
      const schemas = schemasOf()[name]!;
      expect(unportable(schemas.input)).toEqual([]);
      expect(unportable(schemas.output)).toEqual([]);
    });
  });
});
