/** The answers the endpoint writes itself, before or beside the SDK's transports. */

import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The service's Error body, as the hosted endpoint answers 401. */
export const refuse = (
  res: ServerResponse,
  status: number,
  message: string,
  headers?: Record<string, string>,
) => sendJson(res, status, { error: message }, headers);

/**
 * A refusal before the key was accepted: the connection ends with it, so that a client without the
 * key holds no socket (and no descriptor) for longer than one answer.
 */
export const turnAway = (
  res: ServerResponse,
  status: number,
  message: string,
  headers?: Record<string, string>,
) => refuse(res, status, message, { ...headers, connection: 'close' });

/** A JSON-RPC error with id null, as the SDK's transport answers transport-level failures. */
export const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
