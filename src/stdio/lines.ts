/**
 * One JSON-RPC message per line, both ways: what a client line may hold before it is handed on,
 * and how a message becomes a line that is safe to write. Pure: no streams, no state.
 */

import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { escapeJsonText } from '../text/terminal.js';

/** A line longer than this is refused (and skipped) instead of buffered without bound. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * The deepest nesting accepted in a client message. MCP messages are shallow (initialize's
 * capabilities go about five levels down; our tools take flat arguments); the SDK walks messages
 * recursively (zod, JSON.stringify in its error texts), and a few thousand levels overflow the
 * stack there.
 */
export const MAX_DEPTH = 64;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INTERNAL_ERROR = -32603;

export type RequestId = string | number;

export function idOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The id to answer a refused message with: a request's own. A response's id is one the client
 * chose for its own requests; an answer carrying it could settle an unrelated call of the client's.
 */
export function requestIdOf(value: unknown): RequestId | null {
  const id = idOf(value);
  return id !== null && typeof (value as { method?: unknown }).method === 'string' ? id : null;
}

/**
 * Whether a parsed JSON value nests objects and arrays more than `limit` levels deep. Iterative,
 * so a hostile depth cannot overflow the stack here, and it stops at the first level too many:
 * a few microseconds for a normal message.
 */
export function nestedDeeperThan(root: unknown, limit: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child !== 'object' || child === null) continue;
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * One line of JSON, or the error that prevented it: JSON.stringify recurses (a deep value
 * overflows the stack) and cannot build a string past V8's maximum length. Characters JSON leaves
 * raw but line readers and terminals act on (U+2028/9, C1, bidi controls) are escaped.
 *
 * The newline is added before the escape, not after: V8 joins strings lazily and copies a joined
 * string into one piece when a regular expression or a socket write first reads it. Escaping the
 * whole line makes that copy once; a newline appended afterwards would make the write copy the
 * answer a second time, in every call.
 */
export function toLine(message: unknown): string | Error {
  try {
    return escapeJsonText(`${JSON.stringify(message)}\n`);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * The value itself when it is a JSON-RPC 2.0 message, else undefined. The value, not the schema's
 * copy: the copy rebuilds each object, turning an own `__proto__` key into the copy's prototype.
 */
export function asMessage(value: unknown): JSONRPCMessage | undefined {
  try {
    parseJSONRPCMessage(value);
    return value as JSONRPCMessage;
  } catch {
    return undefined;
  }
}
