/** A POST body read within its bound and parsed as JSON. */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { refuse, rpcError } from './replies.js';

/** A request read: its body as text and as JSON. */
export interface ReadBody {
  text: string;
  body: unknown;
}

/** The request body as text, or `tooLarge` once it passes `max` bytes (declared or received). */
async function readBody(req: IncomingMessage, max: number): Promise<string | { tooLarge: true }> {
  if (Number(req.headers['content-length']) > max) return { tooLarge: true };
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > max) return { tooLarge: true };
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and parses a POST body; answers 413 or 400 itself and returns undefined then. */
export async function parsedBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
): Promise<ReadBody | undefined> {
  const text = await readBody(req, maxBodyBytes);
  if (typeof text !== 'string') {
    // The rest of the body is never read: the connection ends with this answer.
    refuse(res, 413, `Request body larger than ${maxBodyBytes} bytes; MCP messages are small.`, {
      connection: 'close',
    });
    return undefined;
  }
  try {
    return { text, body: JSON.parse(text) };
  } catch {
    rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    return undefined;
  }
}

/** The method of a single JSON-RPC message; undefined for anything else. */
export function methodOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as { method?: unknown }).method
    : undefined;
}
