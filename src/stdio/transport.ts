/**
 * The stdio transport. The SDK's StdioServerTransport drops a line that is not JSON without
 * answering and never notices stdin ending; this one answers -32700 / -32600 (the process stays
 * up) and reports the end of input so the process exits within a second, even with an idle
 * keep-alive socket or a call in flight. Hostile or odd bytes either way (messages nested too deep,
 * results too big to serialise, U+2028 in a title) cost one answer, never the session.
 *
 * What happens on the session is watched through `activity` (activity.ts), the one record of
 * requests in flight; the SDK alone sets `onmessage`, `onclose` and `onerror`.
 */

import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { revisionRefusal } from '../protocol-revisions.js';
import { errorText } from '../text/error-text.js';
import { RequestActivity, type SessionActivity } from './activity.js';
import {
  asMessage,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  idOf,
  MAX_DEPTH,
  MAX_LINE_BYTES,
  nestedDeeperThan,
  PARSE_ERROR,
  type RequestId,
  requestIdOf,
  toLine,
} from './lines.js';

/**
 * How long requests still in flight when stdin ends may take to answer: a client that sends its
 * last request and closes its end at once still gets the answer, and the process still exits
 * within a second.
 */
export const DRAIN_MS = 500;

const UNSERIALISABLE =
  'The result could not be serialised: it is too deep or too large to send as JSON. ' +
  'The service probably returned malformed data; try again later or with a narrower request.';

export interface StdioTransportOptions {
  /**
   * Rewrites a client message before anything reads it (the server, the activity's listeners);
   * `subscriptions/listen` is trimmed here to what this server can honour. Must not throw.
   */
  prepare?: (message: JSONRPCMessage) => JSONRPCMessage;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Requests arriving, settling, the session falling idle or closing: see activity.ts. */
  readonly activity: SessionActivity;
  private readonly requests: RequestActivity;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while skipping the rest of an oversized line. */
  private discarding = false;
  private closed = false;
  private draining = false;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly log: Logger,
    private readonly options: StdioTransportOptions = {},
  ) {
    this.requests = new RequestActivity((error) =>
      this.reportError(new Error(`a session listener failed: ${errorText(error)}`)),
    );
    this.activity = this.requests;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10)) {
      const head = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        this.chunks = [];
        this.buffered = 0;
        continue;
      }
      const line = this.chunks.length ? Buffer.concat([...this.chunks, head]) : head;
      this.chunks = [];
      this.buffered = 0;
      this.handleLineSafely(line.toString('utf8'));
    }
    if (this.discarding || data.length === 0) return;
    this.chunks.push(data);
    this.buffered += data.length;
    if (this.buffered > MAX_LINE_BYTES) {
      this.chunks = [];
      this.buffered = 0;
      this.discarding = true;
      this.replyError(
        null,
        INVALID_REQUEST,
        `Invalid Request: message larger than ${MAX_LINE_BYTES} bytes; skipped.`,
      );
    }
  };

  /**
   * One line, whatever it holds: a throw while reading it costs that line alone (reported), never
   * the lines that came in the same chunk after it.
   */
  private handleLineSafely(raw: string): void {
    try {
      this.handleLine(raw);
    } catch (error) {
      this.reportError(new Error(`a client line could not be read: ${errorText(error)}`));
    }
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'not JSON';
      this.log.warn('stdin line is not JSON', { bytes: line.length });
      this.replyError(null, PARSE_ERROR, `Parse error: ${reason}`);
      return;
    }
    if (nestedDeeperThan(value, MAX_DEPTH)) {
      this.log.warn('stdin message nested too deeply', { limit: MAX_DEPTH });
      this.replyError(
        requestIdOf(value),
        INVALID_REQUEST,
        `Invalid Request: message nested deeper than ${MAX_DEPTH} levels; MCP messages are shallow.`,
      );
      return;
    }
    const parsed = asMessage(value);
    if (!parsed) {
      this.log.warn('stdin message is not JSON-RPC 2.0');
      this.replyError(
        idOf(value),
        INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 request, notification or response object ({"jsonrpc":"2.0","method":…}).',
      );
      return;
    }
    const refusal = revisionRefusal(parsed);
    if (refusal) {
      const line = toLine(refusal);
      if (typeof line === 'string') void this.writeLine(line);
      return;
    }
    const message = this.options.prepare ? this.options.prepare(parsed) : parsed;
    this.requests.received(message);
    this.deliver(message);
  }

  /**
   * Hands a message to the SDK. Its handlers can throw synchronously on hostile input (a response
   * to nothing is JSON.stringified into an error text); thrown out of a stream's `data` handler,
   * that would end the process. It costs this message only, reported as one line.
   */
  private deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.reportError(new Error(`a client message could not be handled: ${errorText(error)}`));
    }
  }

  private replyError(id: RequestId | null, code: number, message: string): void {
    // The SDK's types insist on a request id; JSON-RPC answers an unreadable request with id null.
    const line = toLine({ jsonrpc: '2.0', id, error: { code, message } });
    if (typeof line === 'string') void this.writeLine(line);
  }

  /**
   * Ends a request in the server's stead: the server hears that the client cancelled it, so it
   * sends nothing more for it, and the client gets `error` as its answer.
   */
  endRequest(id: RequestId, error: { code: number; message: string }): Promise<void> {
    this.deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    return this.send({ jsonrpc: '2.0', id, error });
  }

  /** Input ended: read what is left as a last line, then close once no work is in flight. */
  private readonly onEnd = (): void => {
    if (this.closed || this.draining) return;
    this.draining = true;
    if (this.chunks.length && !this.discarding) {
      const last = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      this.buffered = 0;
      this.handleLineSafely(last);
    }
    if (this.activity.idle) {
      void this.close();
      return;
    }
    this.activity.onIdle(() => void this.close());
    this.drainTimer = setTimeout(() => void this.close(), DRAIN_MS);
  };

  private readonly onInputError = (error: Error): void => {
    this.reportError(error);
    void this.close();
  };

  private reportError(error: Error): void {
    this.log.warn('stdio error', { error: error.message });
    this.onerror?.(error);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const answers = ('result' in message || 'error' in message) && 'id' in message;
    const id = answers ? (message.id as RequestId) : undefined;
    let written = message;
    let line = toLine(message);
    if (line instanceof Error) {
      // Nothing of it is written: a partial line would corrupt the stream for every later answer.
      if (id === undefined) return Promise.reject(line);
      written = this.unserialisable(id, 'result' in message, line);
      // Small and flat: it always serialises.
      line = toLine(written) as string;
    }
    const sent = this.writeLine(line);
    this.requests.sent(written);
    return sent;
  }

  /**
   * The stand-in for an answer that cannot be serialised; its request must not go unanswered. A
   * tool call gets a tool error, as MCP asks for a failure of the tool's own work (here, absurd
   * data from the service), so the model reads why; any other method gets -32603.
   */
  private unserialisable(id: RequestId, isResult: boolean, error: Error): JSONRPCMessage {
    const method = this.activity.methodOf(id);
    this.log.error('an answer could not be serialised; sent an error instead', {
      id,
      method,
      error: errorText(error),
    });
    const standIn =
      method === 'tools/call' && isResult
        ? { result: { content: [{ type: 'text', text: UNSERIALISABLE }], isError: true } }
        : { error: { code: INTERNAL_ERROR, message: UNSERIALISABLE } };
    return { jsonrpc: '2.0', id, ...standIn } as JSONRPCMessage;
  }

  private writeLine(line: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.drainTimer);
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.onclose?.();
    this.requests.closed();
  }
}
