/**
 * Quiet moments in a stdio session: once something worth waiting for has happened, no request is
 * in flight and none has arrived for a while. Work that is synchronous and can wait (the V8 code
 * cache, code-cache-hook.ts; the idle warm-up, serve-stdio.ts) runs then, so that only a request
 * arriving within those few milliseconds can wait for it. The timer is unref'd: it never keeps the
 * process up.
 *
 * The transport is not this module's: it observes the transport the server is connected to,
 * through the server's `connect`, wrapping the handlers that `connect` set; several observers can
 * wrap one server.
 */

/** How long nothing must happen before a quiet moment. */
export const QUIET_MS = 100;

export interface QuietMomentOptions {
  /**
   * What makes a quiet moment due: the answer to a request with one of these methods, or a
   * notification with one of them (`notifications/initialized`).
   */
  after: ReadonlySet<string>;
  /** @default QUIET_MS */
  quietMs?: number;
}

type Id = string | number;

/** The part of the SDK's Transport this watches. */
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
 * The server, connected so that `onQuiet` is called at each quiet moment after one of `after`,
 * until it returns false (nothing more to do).
 */
export function withQuietMoments<T extends ObservedTransport>(
  server: { connect(transport: T): Promise<void> },
  onQuiet: () => boolean,
  { after, quietMs = QUIET_MS }: QuietMomentOptions,
): { connect(transport: T): Promise<void> } {
  return {
    async connect(transport) {
      // Connected first: whoever serves the transport sets its handlers in connect, and these
      // observe beside them.
      await server.connect(transport);
      /** Requests read and not yet answered, id → method. */
      const unanswered = new Map<Id, string>();
      /** One of `after` happened since the last quiet moment. */
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
          // A listen is a stream that stays open as long as the client likes, not work in flight.
          if (message.id !== undefined && message.method !== 'subscriptions/listen')
            unanswered.set(message.id, message.method);
          else if (after.has(message.method)) due = true;
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
          if (method !== undefined && after.has(method)) due = true;
          arm();
        }
        return sent;
      };
    },
  };
}
