/**
 * JSON-RPC errors for requests that are not tool calls (resources, prompts). A tool reports its
 * failures inside an `isError` result; these methods have no such result, so a failure is the
 * request's error, and its message is still the text a person reads.
 */

import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describeError } from './describe-error.js';
import { AbortedError, InvalidArgumentsError, ModelFeedError } from './errors.js';
import type { Logger } from './log.js';
import { redactSecrets } from './text/redact.js';

/**
 * The code for a resource that does not exist: -32602 from 2026-07-28 on (SEP-2164), and what the
 * SDK's v2 sends in both eras; a 2025 server recodes it to -32002 (resources/not-found.ts).
 */
export const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;

/**
 * An error the SDK sends as `{code, message, data}`. A plain Error with a code, not an McpError:
 * that would prefix the message sent with "MCP error <code>:", and the client's own McpError
 * prefixes it once more.
 */
export function requestError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

export interface FailureContext {
  log: Logger;
  secrets?: readonly string[] | undefined;
}

/**
 * Any failure of a resource read or prompt as the error to send: bad arguments are -32602, an
 * upstream or setup failure -32603 with the text `describeError` gives it. A cancelled request
 * rethrows: the SDK then sends nothing for it.
 */
export function toRequestError(
  error: unknown,
  what: string,
  signal: AbortSignal,
  deps: FailureContext,
): Error {
  if (signal.aborted || error instanceof AbortedError) return new AbortedError();
  if (typeof (error as { code?: unknown })?.code === 'number' && !(error instanceof ModelFeedError)) {
    return error as Error;
  }
  const text = redactSecrets(describeError(error), deps.secrets ?? []);
  if (error instanceof InvalidArgumentsError) return requestError(ProtocolErrorCode.InvalidParams, text);
  if (error instanceof ModelFeedError) deps.log.info(`${what} failed`, { error: text });
  else
    deps.log.error(`${what} failed unexpectedly`, {
      error: error instanceof Error ? error.stack : String(error),
    });
  return requestError(ProtocolErrorCode.InternalError, text);
}
