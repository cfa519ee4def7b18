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

/**
 * How long a write may wait for a full socket to drain. A client that reads drains it at once: the
 * buffers hold megabytes, gone in well under a second over loopback or a LAN. Full for this long,
 * the client is reading nothing.
 */
export const STALLED_WRITE_MS = 30_000;

/**
 * Writes a web Response to a Node response, streaming its body until it ends or the client leaves.
 * A client that reads nothing ends it too: once a write waits more than `stalledWriteMs` for the
 * socket to drain (the kernel's buffers on both sides full), the response is cut, so a stream
 * nobody reads stops holding a connection. Resolves false when it was cut for that, else true.
 */
export async function sendWebResponse(
  response: Response,
  res: ServerResponse,
  stalledWriteMs = STALLED_WRITE_MS,
): Promise<boolean> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return true;
  }
  // Node holds the headers back until the first body write; an event stream's first write may be
  // a keep-alive many seconds away, and a client waits for the 200 before it counts as listening.
  if (headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(() => {});
  };
  // A client gone already (a listen stream's, say) ends the body now, not at its first write.
  if (res.destroyed) {
    cancel();
    return true;
  }
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value) && !(await drainedOrClosed(res, stalledWriteMs))) {
        // The body first: the close event that would cancel it comes after this listener is gone.
        cancel();
        res.destroy();
        return false;
      }
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
  return true;
}

/**
 * Whether a full socket buffer drained (or the client went) within `withinMs`; false when it stayed
 * full that long. Leaves no listener or timer behind.
 */
function drainedOrClosed(res: ServerResponse, withinMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (drained: boolean): void => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve(drained);
    };
    const done = (): void => settle(true);
    const timer = setTimeout(() => settle(false), withinMs);
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
