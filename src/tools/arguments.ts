/**
 * Tool arguments: lenient where models are sloppy (numbers sent as strings, ids with spaces), strict
 * where a mistake would silently change the answer (an unknown argument is reported, not ignored).
 * Every problem names the argument, the value given and what is allowed, from the input schema.
 */

import type { z } from 'zod';
import { InvalidArgumentsError } from '../errors.js';
import type { JsonSchema } from './json-schema.js';

type Properties = Record<string, JsonSchema>;

function properties(schema: JsonSchema): Properties {
  return (schema.properties ?? {}) as Properties;
}

/** Numeric strings become numbers where the schema wants a number ("20" → 20). */
export function coerceArguments(raw: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const props = properties(schema);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const type = props[name]?.type;
    if (
      (type === 'integer' || type === 'number') &&
      typeof value === 'string' &&
      /^\s*-?\d+(\.\d+)?\s*$/.test(value)
    ) {
      out[name] = Number(value);
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** What the schema allows for one property, in words. */
export function describeAllowed(prop: JsonSchema | undefined): string {
  if (!prop) return 'nothing (not an argument of this tool)';
  if (Array.isArray(prop.enum)) return `one of ${prop.enum.join(', ')}`;
  const min = typeof prop.minimum === 'number' ? prop.minimum : undefined;
  const max = typeof prop.maximum === 'number' ? prop.maximum : undefined;
  if (prop.type === 'integer' || prop.type === 'number') {
    const noun = prop.type === 'integer' ? 'an integer' : 'a number';
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} >= ${min}`;
    if (max !== undefined) return `${noun} <= ${max}`;
    return noun;
  }
  if (prop.type === 'string') {
    const maxLength = typeof prop.maxLength === 'number' ? ` of at most ${prop.maxLength} characters` : '';
    return `a non-empty string${maxLength}`;
  }
  return String(prop.type ?? 'a value');
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}… (${text.length} characters)` : text;
}

/** Validates raw arguments against a tool's input: the parsed value, or one actionable error. */
export function parseArguments<S extends z.ZodType>(
  toolName: string,
  input: S,
  jsonSchema: JsonSchema,
  raw: unknown,
): z.output<S> {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new InvalidArgumentsError(
      `Invalid arguments for ${toolName}: expected an object of named arguments, got ${shown(raw)}.`,
    );
  }
  const given = coerceArguments((raw ?? {}) as Record<string, unknown>, jsonSchema);
  const result = input.safeParse(given);
  if (result.success) return result.data;

  const props = properties(jsonSchema);
  const names = Object.keys(props);
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      return `unknown argument ${keys}; ${toolName} takes ${names.join(', ')}`;
    }
    const name = String(issue.path[0] ?? '');
    const value = given[name];
    if (value === undefined) return `missing required argument "${name}": ${describeAllowed(props[name])}`;
    return `"${name}" is ${shown(value)}; allowed: ${describeAllowed(props[name])}`;
  });
  throw new InvalidArgumentsError(`Invalid arguments for ${toolName}: ${[...new Set(problems)].join('; ')}.`);
}
