/**
 * Bounds on the work a response body may cause, not only on its bytes. A 10 MiB cap still admits a
 * body of 900,000 tiny items (24 s of schema parsing) or an array 5,000 levels deep (which no
 * JSON.stringify can write back out). Every body is walked once, iteratively, right after JSON.parse:
 * past a limit the answer is an "unexpected response", before any schema or tool sees it. The walk
 * also blanks the secrets (the key) wherever a hostile service echoes them back.
 *
 * The limits are far above anything the documented shapes reach (docs/limits.md): a page of changes
 * holds at most 100 items, the catalog hundreds of models, a model a dozen fields nested 3 deep.
 */

import { redactSecrets } from '../text/redact.js';
import { yieldToEventLoop } from './yield.js';

export interface BodyLimits {
  /** Nesting of arrays and objects; the documented shapes nest 4 deep. */
  maxDepth: number;
  /** Elements of any one array: items of a page, points of a price history. */
  maxArrayLength: number;
  /** Keys of any one object. */
  maxObjectKeys: number;
  /** Characters of any one string (a title, a summary, a URL). */
  maxStringLength: number;
  /** Values in the whole body, every array element and object value counted. */
  maxValues: number;
}

export const BODY_LIMITS: Readonly<BodyLimits> = Object.freeze({
  maxDepth: 32,
  maxArrayLength: 10_000,
  maxObjectKeys: 1_000,
  maxStringLength: 100_000,
  maxValues: 1_000_000,
});

/** A body past one of the limits; its message says which, for the "unexpected response" message. */
export class BodyLimitExceeded extends Error {}

/** Values walked between two yields to the event loop: a few milliseconds of work. */
const VALUES_PER_SLICE = 50_000;

/**
 * Checks a parsed body against the limits and blanks `secrets` in its strings and keys, in place.
 * Large bodies are walked in slices, yielding between them, so the process keeps answering (and
 * exits on a signal) while a big answer is checked. Rejects with BodyLimitExceeded.
 */
export async function inspectBody(
  body: unknown,
  secrets: readonly string[],
  limits: Readonly<BodyLimits> = BODY_LIMITS,
): Promise<void> {
  // Iterative, not recursive: a deep body must not overflow the stack of the very check meant for it.
  const stack: { value: object; depth: number }[] = [];
  let values = 0;
  let walkedAtYield = 0;
  /** Counts one value; a string comes back with the secrets blanked, anything else unchanged. */
  const visit = <T>(value: T, depth: number): T => {
    if (++values > limits.maxValues) {
      throw new BodyLimitExceeded(`more than ${limits.maxValues} values in one answer`);
    }
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength) {
        throw new BodyLimitExceeded(
          `a string of ${value.length} characters, more than the ${limits.maxStringLength} allowed`,
        );
      }
      return (secrets.length ? redactSecrets(value, secrets) : value) as T;
    }
    if (value !== null && typeof value === 'object') {
      if (depth > limits.maxDepth) {
        throw new BodyLimitExceeded(`nested more than ${limits.maxDepth} levels deep`);
      }
      stack.push({ value, depth });
    }
    return value;
  };
  visit(body, 1);
  while (stack.length) {
    const { value, depth } = stack.pop() as { value: object; depth: number };
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) {
        throw new BodyLimitExceeded(
          `a list of ${value.length} entries, more than the ${limits.maxArrayLength} allowed`,
        );
      }
      for (let i = 0; i < value.length; i++) {
        const element: unknown = value[i];
        const safe = visit(element, depth + 1);
        if (safe !== element) value[i] = safe;
      }
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length > limits.maxObjectKeys) {
        throw new BodyLimitExceeded(
          `an object of ${keys.length} fields, more than the ${limits.maxObjectKeys} allowed`,
        );
      }
      for (const key of keys) {
        const element = record[key];
        const safe = visit(element, depth + 1);
        const safeKey = secrets.length ? redactSecrets(key, secrets) : key;
        if (safeKey !== key) delete record[key];
        // defineProperty, not assignment: a key such as "__proto__" stays a plain own field.
        if (safeKey !== key || safe !== element) {
          Object.defineProperty(record, safeKey, {
            value: safe,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
    }
    if (values - walkedAtYield >= VALUES_PER_SLICE) {
      walkedAtYield = values;
      await yieldToEventLoop();
    }
  }
}
