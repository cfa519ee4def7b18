/**
 * The stdio transport and process lifecycle. The SDK's StdioServerTransport drops a line that is
 * not JSON without answering and never notices stdin ending; this one answers -32700 / -32600 (the
 * process stays up) and reports the end of input so the process exits within a second, even with
 * an idle keep-alive socket or a call in flight. Hostile or odd bytes either way (messages nested
 * too deep, results too big to serialise, U+2028 in a title) cost one answer, never the session;
 * and a server whose client died without closing stdin notices and exits.
 */

import type { Readable, Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  type ProtocolEra,
  parseJSONRPCMessage,
  type Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from './log.js';
import { revisionRefusal } from './protocol-revisions.js';
import { escapeJsonText } from './text/terminal.js';

/** A line longer than this is refused (and skipped) instead of buffered without bound. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * How long requests still in flight when stdin ends may take to answer: a client that sends its
 * last request and closes its end at once still gets the answer, and the process still exits
 * within a second.
 */
export const DRAIN_MS = 500;

/**
 * The deepest nesting accepted in a client message. MCP messages are shallow (initialize's
 * capabilities go about five levels down; our tools take flat arguments); the SDK walks messages
 * recursively (zod, JSON.stringify in its error texts), and a few thousand levels overflow the
 * stack there.
 */
export const MAX_DEPTH = 64;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

const UNSERIALISABLE =
  'The result could not be serialised: it is too deep or too large to send as JSON. ' +
  'The service probably returned malformed data; try again later or with a narrower request.';

function idOf(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The id to answer a refused message with: a request's own. A response's id is one the client
 * chose for its own requests; an answer carrying it could settle an unrelated call of the client's.
 */
function requestIdOf(value: unknown): string | number | null {
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
 */
function toLine(message: unknown): string | Error {
  try {
    return `${escapeJsonText(JSON.stringify(message))}\n`;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * The value itself when it is a JSON-RPC 2.0 message, else undefined. The value, not the schema's
 * copy: the copy rebuilds each object, turning an own `__proto__` key into the copy's prototype.
 */
function asMessage(value: unknown): JSONRPCMessage | undefined {
  try {
    parseJSONRPCMessage(value);
    return value as JSONRPCMessage;
  } catch {
    return undefined;
  }
}

const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while skipping the rest of an oversized line. */
  private discarding = false;
  private closed = false;
  /**
   * Requests read but not yet answered, id → method: the end of input waits for them, and an
   * answer that cannot be serialised is replaced by one that fits its method.
   */
  private readonly unanswered = new Map<string | number, string>();
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly log: Logger,
  ) {}

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
      this.onerror?.(new Error(`a client line could not be read: ${errorText(error)}`));
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
    const message = asMessage(value);
    if (!message) {
      this.log.warn('stdin message is not JSON-RPC 2.0');
      this.replyError(
        idOf(value),
        INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 request, notification or response object ({"jsonrpc":"2.0","method":…}).',
      );
      return;
    }
    const refusal = revisionRefusal(message);
    if (refusal) {
      const line = toLine(refusal);
      if (typeof line === 'string') void this.writeLine(line);
      return;
    }
    if ('method' in message && 'id' in message) this.unanswered.set(message.id, message.method);
    // A cancelled request gets no answer at all; the end of input must not wait for one.
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const cancelled = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (cancelled !== undefined) this.unanswered.delete(cancelled);
    }
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
      this.onerror?.(new Error(`a client message could not be handled: ${errorText(error)}`));
    }
  }

  private replyError(id: string | number | null, code: number, message: string): void {
    // The SDK's types insist on a request id; JSON-RPC answers an unreadable request with id null.
    const line = toLine({ jsonrpc: '2.0', id, error: { code, message } });
    if (typeof line === 'string') void this.writeLine(line);
  }

  /** Input ended: read what is left as a last line, then close once every request is answered. */
  private readonly onEnd = (): void => {
    if (this.closed || this.drainTimer) return;
    if (this.chunks.length && !this.discarding) {
      const last = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      this.buffered = 0;
      this.handleLineSafely(last);
    }
    if (this.unanswered.size === 0) {
      void this.close();
      return;
    }
    this.drainTimer = setTimeout(() => void this.close(), DRAIN_MS);
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  send(message: JSONRPCMessage): Promise<void> {
    const answers = ('result' in message || 'error' in message) && 'id' in message;
    const id = answers ? (message.id as string | number) : undefined;
    let line = toLine(message);
    if (line instanceof Error) {
      // Nothing of it is written: a partial line would corrupt the stream for every later answer.
      if (id === undefined) return Promise.reject(line);
      line = this.unserialisable(id, 'result' in message, line);
    }
    const sent = this.writeLine(line);
    if (id !== undefined) {
      this.unanswered.delete(id);
      if (this.drainTimer && this.unanswered.size === 0) void this.close();
    }
    return sent;
  }

  /**
   * The stand-in for an answer that cannot be serialised; its request must not go unanswered. A
   * tool call gets a tool error, as MCP asks for a failure of the tool's own work (here, absurd
   * data from the service), so the model reads why; any other method gets -32603.
   */
  private unserialisable(id: string | number, isResult: boolean, error: Error): string {
    const method = this.unanswered.get(id);
    this.log.error('an answer could not be serialised; sent an error instead', {
      id,
      method,
      error: errorText(error),
    });
    const standIn =
      method === 'tools/call' && isResult
        ? { result: { content: [{ type: 'text', text: UNSERIALISABLE }], isError: true } }
        : { error: { code: INTERNAL_ERROR, message: UNSERIALISABLE } };
    // Small and flat: it always serialises.
    return toLine({ jsonrpc: '2.0', id, ...standIn }) as string;
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
  }
}

export interface StdioOptions {
  log: Logger;
  /** Releases what keeps the event loop alive (the HTTP dispatcher's sockets). */
  onShutdown?: () => Promise<void> | void;
  input?: Readable;
  output?: Writable;
  /** How often to check that the parent process (the MCP client) is still there. @default 2000 */
  parentCheckMs?: number;
}

/** The longest shutdown may take, once input has ended and drained, before the process exits regardless. */
const SHUTDOWN_GRACE_MS = 300;

/** Often enough that an orphan goes within seconds; rarely enough to cost nothing. */
const PARENT_CHECK_MS = 2000;

/**
 * Whether the process that started this one is gone. An orphan is adopted by init or a subreaper,
 * which changes its parent id on Linux and macOS. Windows never updates the parent id, so the
 * process is also probed: ESRCH means gone; EPERM means it exists under another user.
 */
export function parentGone(startPpid: number, currentPpid: number = process.ppid): boolean {
  if (currentPpid !== startPpid) return true;
  try {
    process.kill(startPpid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Calls `onGone` once when the parent process goes. A client that dies while something else holds
 * the stdin pipe open (a grandchild, a sibling, a wrapper script) never ends our input; without
 * this the server would outlive it for ever. The timer is unref'd: it never keeps the process up.
 * Returns the timer, or nothing when there is no parent to watch (pid 0: a container's first process).
 */
export function watchParent(
  onGone: () => void,
  {
    intervalMs = PARENT_CHECK_MS,
    ppid = () => process.ppid,
  }: { intervalMs?: number; ppid?: () => number } = {},
): NodeJS.Timeout | undefined {
  const startPpid = ppid();
  if (startPpid === 0) return undefined;
  const timer = setInterval(() => {
    if (!parentGone(startPpid, ppid())) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  return timer.unref();
}

/**
 * The handler for an error that escaped every other (`uncaughtException`, `unhandledRejection`).
 * While serving it logs one line and the session goes on. The process is one long session that
 * the MCP client will not restart by itself: dying would fail every call in flight and take the
 * user's tools away until they restart the client. What can still escape (the transport, the SDK
 * and the tool handlers each catch their own) is a stray throw in one request's callback; the
 * state Node warns may be left half-updated is then that request's bookkeeping, a smaller harm.
 * Once shutting down there is nothing left to save: exit with status 1, so that the error can
 * neither hold the process nor pass for a clean exit.
 */
export function lastResort(
  log: Logger,
  stopping: () => boolean,
  exit: (code: number) => void = (code) => process.exit(code),
): (error: unknown) => void {
  return (error) => {
    // The message only: a stack of the minified bundle helps nobody, and may be long.
    if (stopping()) {
      log.error('uncaught error during shutdown', { error: errorText(error) });
      exit(1);
      return;
    }
    log.error('uncaught error, still serving', { error: errorText(error) });
  };
}

/** What serves a stdio connection once given its transport. */
export interface StdioServing {
  connect(transport: Transport): Promise<void>;
}

/**
 * Both protocol eras from one factory: the SDK's `serveStdio` pins one server per connection by its
 * opening (`initialize`: 2025-11-25; `server/discover` or an enveloped request: 2026-07-28), over
 * this module's transport. What it reports (a refused opening, a message for no era) goes to the
 * log at debug: the client already got the answer.
 */
export function servingBothEras(
  factory: (context: { era: ProtocolEra }) => Server,
  log: Logger,
): StdioServing {
  return {
    async connect(transport) {
      serveStdio(factory, {
        transport,
        onerror: (error) => log.debug('MCP stdio', { error: error.message }),
      });
    },
  };
}

/**
 * Serves one MCP session over stdio until stdin ends, a signal arrives or the parent process goes,
 * then exits the process: within SHUTDOWN_GRACE_MS, whatever is still in flight.
 */
export async function runStdio(server: StdioServing, options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const transport = new StdioTransport(input, output, options.log);
  let stopping = false;

  const stop = (why: string, code = 0): void => {
    if (stopping) return;
    stopping = true;
    options.log.debug('shutting down', { why });
    const exit = (): never => process.exit(code);
    setTimeout(exit, SHUTDOWN_GRACE_MS).unref();
    const flushed = new Promise<void>((resolve) => {
      if (!output.writableNeedDrain) resolve();
      else output.once('drain', () => resolve());
    });
    Promise.allSettled([flushed, options.onShutdown?.()]).then(exit);
  };

  const onUncaught = lastResort(options.log, () => stopping);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  // A client that vanished closes the pipe: writing to it fails with EPIPE; nothing is left to serve.
  output.on('error', () => stop('stdout closed'));
  // A closed stderr only silences the log; MCP goes on over stdout. Unheard, each failed log line
  // would be an uncaught error, logged to stderr again: a loop at full CPU.
  process.stderr.on('error', () => {});
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  watchParent(
    () => {
      options.log.info('parent process exited; shutting down');
      stop('parent process exited');
    },
    { intervalMs: options.parentCheckMs },
  );
  await server.connect(transport);
  // After connect: whoever serves the connection sets its own handlers there; these run beside them.
  const served = { onclose: transport.onclose, onerror: transport.onerror };
  transport.onclose = () => {
    served.onclose?.();
    stop('stdin closed');
  };
  transport.onerror = (error) => {
    served.onerror?.(error);
    options.log.warn('stdio error', { error: error.message });
  };
  options.log.debug('serving MCP on stdio');
}
