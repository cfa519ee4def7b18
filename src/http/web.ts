/**
 * Node's `IncomingMessage`/`ServerResponse` and the web-standard `Request`/`Response` the SDK's
 * HTTP entries speak. A body already read (and bounded) by the caller is passed as text; otherwise
 * the Request streams it from the socket, for the SDK to read under its own bound. A response body
 * is streamed as it comes (an SSE stream stays open), and a client that goes away cancels it.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/** A web Request for a Node request: with the body given as text, or else streamed from `req`. */
export function toWebRequest(req: IncomingMessage, body?: string, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // The Host was checked before this (host-check.ts); the URL only needs to parse.
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    url = new URL(req.url ?? '/', 'http://localhost');
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    ...(signal && { signal }),
    ...(hasBody && body !== undefined && { body }),
    // A stream as body needs `duplex` (Node's fetch refuses it otherwise).
    ...(hasBody && body === undefined && { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' }),
  } as RequestInit);
}

/** Writes a web Response to a Node response, streaming its body until it ends or the client leaves. */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(() => {});
  };
  // A client gone already (a listen stream's, say) ends the body now, not at its first write.
  if (res.destroyed) {
    cancel();
    return;
  }
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drainedOrClosed(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}

/** Resolves when a full socket buffer drains or the client goes; leaves no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A 2025 request with no session, answered by `server` alone with a JSON body, as the hosted
 * endpoint answers: a one-shot `tools/call` from curl gets plain JSON, not an event stream. The
 * transport still asks every POST to accept both (`Accept: application/json, text/event-stream`)
 * and answers 406 otherwise, so curl must send that header. The caller closes the server once the
 * answer is sent.
 */
export async function answerWithoutSession(
  server: Server,
  request: Request,
  parsedBody: unknown,
  onerror: (error: Error) => void,
): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  transport.onerror = onerror;
  await server.connect(transport);
  return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
}
