/**
 * Tool arguments: lenient where models are sloppy (numbers sent as strings, ids with spaces), strict
 * where a mistake would silently change the answer (an unknown argument is reported, not ignored).
 * Every problem names the argument, the value given and what is allowed, from the input schema.
 */

import type { z } from 'zod';
import { InvalidArgumentsError } from '../errors.js';
import { escapeJsonText } from '../text/terminal.js';
import type { JsonSchema } from './json-schema.js';

type Properties = Record<string, JsonSchema>;

function properties(schema: JsonSchema): Properties {
  return (schema.properties ?? {}) as Properties;
}

/**
 * A record's own entry, never an inherited one: "constructor" or "__proto__" read with `[]` would
 * answer from Object.prototype.
 */
function own<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

function coerce(value: unknown, type: unknown): unknown {
  const numeric = (type === 'integer' || type === 'number') && typeof value === 'string';
  return numeric && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

/**
 * Numeric strings become numbers where the schema wants a number ("20" → 20). Only the caller's own
 * keys are read, and the copy is built with Object.fromEntries: assigning `out["__proto__"] = v`
 * would set the copy's prototype instead, and zod would then read a filter through it. As an own
 * key, "__proto__" is reported like any unknown argument.
 */
export function coerceArguments(raw: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const props = properties(schema);
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => [name, coerce(value, own(props, name)?.type)]),
  );
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

/** A value the caller gave, as a message quotes it: JSON-escaped, cut when long. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON.stringify writes these as null (JSON.parse reads 1e400 as Infinity): say what they are.
  if (typeof value === 'number' && Number.isNaN(value)) return 'not a number (NaN)';
  if (typeof value === 'number' && !Number.isFinite(value)) return `a number out of range (${value})`;
  // The caller's own value, echoed: escaped like JSON so that no line break, escape sequence or
  // bidirectional control in it acts on the terminal or the reader.
  const text = escapeJsonText(JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}… (${text.length} characters)` : text;
}

/** How a message names the arguments: as a model sends them, or as flags of `call`. */
export interface ArgumentNaming {
  /** The start of the message. @default `Invalid arguments for <tool>` */
  header?: string;
  /** What one argument is called. @default 'argument' */
  noun?: string;
  /** One argument as the message shows it. @default the name in double quotes */
  label?: (name: string) => string;
}

/** Validates raw arguments against a tool's input: the parsed value, or one actionable error. */
export function parseArguments<S extends z.ZodType>(
  toolName: string,
  input: S,
  jsonSchema: JsonSchema,
  raw: unknown,
  naming: ArgumentNaming = {},
): z.output<S> {
  const header = naming.header ?? `Invalid arguments for ${toolName}`;
  const noun = naming.noun ?? 'argument';
  const label = naming.label ?? ((name: string) => `"${name}"`);
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new InvalidArgumentsError(`${header}: expected an object of named arguments, got ${shown(raw)}.`);
  }
  const given = coerceArguments((raw ?? {}) as Record<string, unknown>, jsonSchema);
  const result = input.safeParse(given);
  if (result.success) return result.data;

  const props = properties(jsonSchema);
  const names = Object.keys(props);
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map(shown).join(', ');
      return `unknown ${noun} ${keys}; ${toolName} takes ${(naming.label ? names.map(naming.label) : names).join(', ')}`;
    }
    const name = String(issue.path[0] ?? '');
    const value = own(given, name);
    const allowed = describeAllowed(own(props, name));
    if (value === undefined) return `missing required ${noun} ${label(name)}: ${allowed}`;
    // A rule the JSON Schema cannot say (a refinement) says itself what it wants.
    if (issue.code === 'custom') return `${label(name)} is ${shown(value)}: ${issue.message}`;
    return `${label(name)} is ${shown(value)}; allowed: ${allowed}`;
  });
  throw new InvalidArgumentsError(`${header}: ${[...new Set(problems)].join('; ')}.`);
}
