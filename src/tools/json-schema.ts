/**
 * JSON Schemas for `tools/list`, derived once from the zod schemas and cleaned for portability:
 * zod emits `$schema`, `type: [x, "null"]`, `additionalProperties: {}` on loose objects and
 * ±2^53 bounds on integers. Clients that map schemas onto single-type dialects (Gemini's OpenAPI
 * subset) trip on the first; the rest is noise that costs the model context on every session.
 */

import * as z from 'zod';

export type JsonSchema = { [keyword: string]: unknown };

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

function isPlainObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cleanNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanNode);
  if (!isPlainObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    // Absent additionalProperties already allows extra fields; `{}` says the same with more bytes.
    if (key === 'additionalProperties' && isPlainObject(value) && Object.keys(value).length === 0) continue;
    if (
      (key === 'maximum' && value === SAFE_INTEGER_BOUND) ||
      (key === 'minimum' && value === -SAFE_INTEGER_BOUND)
    )
      continue;
    if (key === 'default' && value === null) continue;
    out[key] = cleanNode(value);
  }
  const type = out.type;
  if (Array.isArray(type)) {
    // `type: ["string", "null"]` becomes `anyOf` branches of one type each; constraints stay with
    // the branch they constrain.
    const { type: _types, description, ...constraints } = out;
    const branches = (type as string[]).map((t) =>
      t === 'null' ? { type: t } : { type: t, ...constraints },
    );
    return description === undefined ? { anyOf: branches } : { description, anyOf: branches };
  }
  return out;
}

/** A zod schema as a clean JSON Schema: `input` for tool arguments, `output` for results. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return cleanNode(z.toJSONSchema(schema, { io, unrepresentable: 'any' })) as JsonSchema;
}
