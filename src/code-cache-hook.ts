/**
 * Quiet moments in a stdio session, for the bin's V8 code cache (bin/load-bundle.cjs). The cache
 * holds what has been compiled so far, so it is worth writing once the first `tools/list` or tool
 * call has been answered, and soon: a client that ends its servers with SIGKILL gives no exit to
 * write it at. Making it is synchronous (createCachedData, 4–13 ms measured), so it waits until no
 * request is in flight and none has arrived for QUIET_MS; only a request arriving within those few
 * milliseconds can wait for it. The timer is unref'd: it never keeps the process up.
 *
 * The loader cannot see MCP messages, and the transport is not this module's: it observes the
 * transport the server is connected to, through the server's `connect`.
 */

import type { Logger } from './log.js';

/** How long nothing must happen, after a worthwhile answer, before the cache is made. */
export const QUIET_MS = 100;

/** Answers after which the session has compiled what serving needs: these make a cache worth it. */
const WORTH_CACHING: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

/** What the bin's loader offers (bin/load-bundle.cjs); absent when the bundle is loaded otherwise. */
export interface CodeCache {
  /**
   * What V8 made of the cache at load: used it, refused it (another build or flags), found none, or
   * `unavailable` (no build hash to key it by: nothing is read or written).
   */
  readonly loaded: 'accepted' | 'rejected' | 'missing' | 'unavailable';
  /** Whether a later quiet moment could still write or refresh the cache in this session. */
  readonly pending: boolean;
  /** Writes the cache if there is none, or refreshes it if it has grown; never throws. */
  quietMoment(): CodeCacheWrite | undefined;
}

export interface CodeCacheWrite {
  reason: 'first' | 'refresh';
  bytes: number;
  file: string;
}

type Id = string | number;

/** The part of the SDK's Transport this watches. Handlers set before `connect` are chained by the SDK. */
export interface ObservedTransport {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's handler is generic over its message types
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  send(message: any, options?: any): Promise<void>;
}

interface Message {
  id?: Id;
  method?: string;
  params?: { requestId?: Id };
  result?: unknown;
  error?: unknown;
}

/**
 * The server, connected so that `onQuiet` is called at each quiet moment after a `tools/list` or
 * `tools/call` answer, until it returns false (nothing more to do).
 */
export function withQuietMoments<T extends ObservedTransport>(
  server: { connect(transport: T): Promise<void> },
  onQuiet: () => boolean,
  quietMs: number = QUIET_MS,
): { connect(transport: T): Promise<void> } {
  return {
    connect(transport) {
      /** Requests read and not yet answered, id → method. */
      const unanswered = new Map<Id, string>();
      /** A worthwhile answer went out since the last quiet moment. */
      let due = false;
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;

      const arm = (): void => {
        clearTimeout(timer);
        timer = undefined;
        if (stopped || !due || unanswered.size > 0) return;
        timer = setTimeout(() => {
          timer = undefined;
          due = false;
          stopped = !onQuiet();
        }, quietMs).unref();
      };

      const prior = transport.onmessage;
      transport.onmessage = (message: Message, extra?: unknown) => {
        prior?.(message, extra);
        if (stopped) return;
        if (typeof message.method === 'string') {
          if (message.id !== undefined) unanswered.set(message.id, message.method);
          // A cancelled request gets no answer: it must not hold the quiet moment back for ever.
          else if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined)
            unanswered.delete(message.params.requestId);
        }
        arm();
      };

      const send = transport.send.bind(transport);
      transport.send = (message: Message, options?: unknown) => {
        const sent = send(message, options);
        if (!stopped && message.id !== undefined && ('result' in message || 'error' in message)) {
          const method = unanswered.get(message.id);
          unanswered.delete(message.id);
          if (method !== undefined && WORTH_CACHING.has(method)) due = true;
          arm();
        }
        return sent;
      };

      return server.connect(transport);
    },
  };
}

/** The server with the code cache written at its quiet moments, and what happened logged at debug. */
export function withCodeCache<T extends ObservedTransport>(
  server: { connect(transport: T): Promise<void> },
  codeCache: CodeCache | undefined,
  log: Logger,
): { connect(transport: T): Promise<void> } {
  if (!codeCache) return server;
  log.debug('V8 code cache', { loaded: codeCache.loaded });
  if (!codeCache.pending) return server;
  return withQuietMoments(server, () => {
    const written = codeCache.quietMoment();
    if (written) log.debug('V8 code cache written', { ...written });
    return codeCache.pending;
  });
}
