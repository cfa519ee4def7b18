/** Reading an upstream body within its byte cap, and letting go of one that is not read. */

import { StringDecoder } from 'node:string_decoder';

export class ResponseTooLarge extends Error {}

/** The body of node:http and undici responses. */
interface NodeStream {
  destroy(): void;
  on(event: 'error', listener: () => void): unknown;
}

/** The body of a WHATWG fetch Response (msw's, in unit tests). */
interface WebStream {
  cancel(): Promise<void>;
}

function isNodeStream(body: unknown): body is NodeStream {
  const stream = body as Partial<NodeStream> | null;
  return typeof stream?.destroy === 'function' && typeof stream.on === 'function';
}

function isWebStream(body: unknown): body is WebStream {
  return typeof (body as Partial<WebStream> | null)?.cancel === 'function';
}

/**
 * Stops reading a body and lets its connection go. An iterator's `return()` alone would not: on a
 * Node stream not yet read it does nothing, the socket stays taken, and six such answers (redirects,
 * oversized bodies) would fill the pool and hang every later call. Not awaited: a stalled sender
 * could hold the call past its timeout.
 */
export function discard(body: AsyncIterable<Uint8Array> | null, iterator?: AsyncIterator<Uint8Array>): void {
  if (isNodeStream(body)) {
    // undici's body reports being destroyed unread as an 'error': for a body thrown away it means
    // nothing, and unheard it would be an uncaught exception.
    body.on('error', () => {});
    body.destroy();
  } else if (iterator) {
    // A WHATWG stream's iterator cancels the stream it has locked.
    iterator.return?.().catch(() => {});
  } else if (isWebStream(body)) {
    body.cancel().catch(() => {});
  }
}

/** The body as text; ResponseTooLarge past `maxBytes`, declared (`contentLength`) or received. */
export async function readCapped(
  body: AsyncIterable<Uint8Array> | null,
  contentLength: string | null,
  maxBytes: number,
): Promise<string> {
  const declared = Number(contentLength ?? Number.NaN);
  if (declared > maxBytes) {
    discard(body);
    throw new ResponseTooLarge();
  }
  const iterator = body?.[Symbol.asyncIterator]();
  if (!iterator) return '';
  // Decoded chunk by chunk rather than gathered and concatenated first: a large body then never
  // exists twice outside the JS heap (the chunks and their copy), which kept peak memory high.
  const decoder = new StringDecoder('utf8');
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await iterator.next();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      discard(body, iterator);
      throw new ResponseTooLarge();
    }
    text += decoder.write(
      Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
    );
  }
  return text + decoder.end();
}
