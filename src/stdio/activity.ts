/**
 * The one record of a stdio session's requests in flight, and the one way to watch them: a
 * request arriving, a request settling (answered, failed or cancelled by the client), the session
 * falling idle, a notification either way, and the session closing. The transport feeds it with
 * every message it hands to the server and every message the server sends; everything else that
 * cares (the end of input, the idle warm-up, `subscriptions/listen`) listens here instead of
 * wrapping the transport's handlers.
 *
 * Order, for one message: listeners hear of a client message before the server reads it, and of
 * a server message once its line is written. A request's `settled` comes before the `idle` it
 * causes. A listener that throws costs its own call only: the error is reported, the message
 * still reaches the server and the other listeners.
 */

import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { RequestId } from './lines.js';

/**
 * Requests that open a stream the client holds for as long as it likes: tracked (they settle when
 * cancelled or refused) but never work in flight, so they hold back neither idleness nor exit.
 */
const STREAM_METHODS: ReadonlySet<string> = new Set(['subscriptions/listen']);

export interface ArrivedRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: unknown;
}

export interface Notification {
  readonly method: string;
  readonly params: unknown;
}

/**
 * How a request ended: answered with a result, answered with an error (the server's, or a
 * stand-in's), or cancelled by the client (then the server sends no answer at all).
 */
export type Outcome = 'result' | 'error' | 'cancelled';

export interface SettledRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly outcome: Outcome;
}

/** Stops the listener it was returned for. */
export type Unsubscribe = () => void;

/** What the transport offers to watch: `transport.activity`. */
export interface SessionActivity {
  /** Whether no request is in flight (open streams aside). True before the first request. */
  readonly idle: boolean;
  /** The method of a request still in flight (or an open stream), by id. */
  methodOf(id: RequestId): string | undefined;
  onRequest(listener: (request: ArrivedRequest) => void): Unsubscribe;
  onSettled(listener: (request: SettledRequest) => void): Unsubscribe;
  /** The last request in flight has settled. */
  onIdle(listener: () => void): Unsubscribe;
  /** A notification from the client (`notifications/initialized`, `notifications/cancelled`, …). */
  onNotification(listener: (notification: Notification) => void): Unsubscribe;
  /** A notification the server sent (progress, list changes, a listen's acknowledgement, …). */
  onServerNotification(listener: (notification: Notification) => void): Unsubscribe;
  /** The session is over: input ended (and drained), failed, or the transport was closed. */
  onClosed(listener: () => void): Unsubscribe;
}

class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly reportError: (error: unknown) => void) {}

  add(listener: (value: T) => void): Unsubscribe {
    // Wrapped: the same function added twice is two listeners, each removed by its own unsubscribe.
    const entry = (value: T) => listener(value);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(value: T): void {
    // A copy: a listener may unsubscribe (itself or another) while hearing.
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.reportError(error);
      }
    }
  }
}

/** The transport's side: it reports each message; listeners hear what follows from it. */
export class RequestActivity implements SessionActivity {
  /** Requests read and not yet settled, id → method. */
  private readonly inFlight = new Map<RequestId, string>();
  private isClosed = false;
  private readonly requests: Listeners<ArrivedRequest>;
  private readonly settled: Listeners<SettledRequest>;
  private readonly idles: Listeners<void>;
  private readonly notifications: Listeners<Notification>;
  private readonly serverNotifications: Listeners<Notification>;
  private readonly closes: Listeners<void>;

  constructor(reportError: (error: unknown) => void) {
    this.requests = new Listeners(reportError);
    this.settled = new Listeners(reportError);
    this.idles = new Listeners(reportError);
    this.notifications = new Listeners(reportError);
    this.serverNotifications = new Listeners(reportError);
    this.closes = new Listeners(reportError);
  }

  get idle(): boolean {
    for (const method of this.inFlight.values()) if (!STREAM_METHODS.has(method)) return false;
    return true;
  }

  methodOf(id: RequestId): string | undefined {
    return this.inFlight.get(id);
  }

  onRequest(listener: (request: ArrivedRequest) => void): Unsubscribe {
    return this.requests.add(listener);
  }

  onSettled(listener: (request: SettledRequest) => void): Unsubscribe {
    return this.settled.add(listener);
  }

  onIdle(listener: () => void): Unsubscribe {
    return this.idles.add(listener);
  }

  onNotification(listener: (notification: Notification) => void): Unsubscribe {
    return this.notifications.add(listener);
  }

  onServerNotification(listener: (notification: Notification) => void): Unsubscribe {
    return this.serverNotifications.add(listener);
  }

  onClosed(listener: () => void): Unsubscribe {
    return this.closes.add(listener);
  }

  /** A client message, just before the server reads it. Responses to the server's own requests are not activity. */
  received(message: JSONRPCMessage): void {
    if (this.isClosed || !('method' in message)) return;
    if ('id' in message) {
      this.inFlight.set(message.id, message.method);
      this.requests.emit({ id: message.id, method: message.method, params: message.params });
      return;
    }
    // A cancelled request gets no answer at all: it settles here.
    if (message.method === 'notifications/cancelled') {
      const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (cancelled !== undefined) this.settle(cancelled, 'cancelled');
    }
    this.notifications.emit({ method: message.method, params: message.params });
  }

  /** A message the server sent, once written: an answer settles its request. */
  sent(message: JSONRPCMessage): void {
    if (this.isClosed) return;
    if ('method' in message) {
      if (!('id' in message))
        this.serverNotifications.emit({ method: message.method, params: message.params });
      return;
    }
    if ('id' in message && message.id != null)
      this.settle(message.id, 'error' in message ? 'error' : 'result');
  }

  /** The session ended. What was in flight will never be answered: nothing settles, `closed` says it all. */
  closed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.inFlight.clear();
    this.closes.emit();
  }

  private settle(id: RequestId, outcome: Outcome): void {
    const method = this.inFlight.get(id);
    if (method === undefined) return;
    const wasIdle = this.idle;
    this.inFlight.delete(id);
    this.settled.emit({ id, method, outcome });
    if (!wasIdle && this.idle) this.idles.emit();
  }
}
