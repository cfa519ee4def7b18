/**
 * `subscriptions/listen` (2026-07-28) for `model-feed://changes`, on the one poller that 2025
 * `resources/subscribe` and `--http` sessions share (changes-subscriptions.ts). The SDK's serving
 * entries answer the listen itself (the acknowledgement first, the subscription id on every
 * notification, the graceful close); what is ours:
 * - what is honoured: the SDK acknowledges any resource URI a client lists once `subscribe` is
 *   declared, and only `model-feed://changes` ever changes, so a listen is trimmed to it before
 *   the SDK reads it: the acknowledgement then reports exactly what will be sent;
 * - when the poller runs: from the first listen on the changes to the end of the last one, by
 *   cancel, closed stream or exit.
 */

import {
  type JSONRPCMessage,
  type ServerEvent,
  type ServerEventBus,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import { type FailureContext, toRequestError } from '../request-errors.js';
import type { Notification } from '../stdio/activity.js';
import type { StdioTransport } from '../stdio/transport.js';
import { CHANGES_URI } from './changes.js';
import type { ChangesSubscriber, ChangesSubscriptions } from './changes-subscriptions.js';

type Id = string | number;

/** What an HTTP endpoint's `admitModern` decided: the message to serve, or an error to answer it with. */
export type ModernAdmission =
  | { message: JSONRPCMessage /** Called once its answer, or its stream, has ended. */; served?: () => void }
  | { refusal: { code: number; message: string } };

interface ListenParams {
  notifications?: { resourceSubscriptions?: unknown } & Record<string, unknown>;
}

function isListen(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; params?: ListenParams } {
  return 'method' in message && message.method === 'subscriptions/listen' && 'id' in message;
}

/**
 * A listen with its resource subscriptions cut to those this server can honour (the changes
 * resource); any other message as it is. A malformed filter is left for the SDK to refuse. On
 * stdio the transport applies it to each client message (its `prepare` option).
 */
export function honoredListen(message: JSONRPCMessage): JSONRPCMessage {
  if (!isListen(message)) return message;
  const notifications = message.params?.notifications;
  const asked = notifications?.resourceSubscriptions;
  if (!Array.isArray(asked)) return message;
  const kept = asked.includes(CHANGES_URI) ? [CHANGES_URI] : [];
  return {
    ...message,
    params: { ...message.params, notifications: { ...notifications, resourceSubscriptions: kept } },
  } as JSONRPCMessage;
}

/** The error a listen is ended with when polling cannot work: the text toRequestError gives it. */
function listenRefusal(error: Error, context: FailureContext): { code: number; message: string } {
  const refusal = toRequestError(error, 'subscriptions/listen', new AbortController().signal, context);
  return { code: (refusal as Error & { code: number }).code, message: refusal.message };
}

/** Whether a (trimmed) listen's parameters ask to hear of the changes resource. */
function listensToChanges(params: unknown): boolean {
  const asked = (params as ListenParams | undefined)?.notifications?.resourceSubscriptions;
  return Array.isArray(asked) && asked.includes(CHANGES_URI);
}

/** What followListens needs of the stdio transport: its activity, and a way to write. */
export type ListenTransport = Pick<StdioTransport, 'activity' | 'send' | 'endRequest'>;

/**
 * The listens on one stdio connection, watched through the transport's activity, its listens
 * already trimmed by `honoredListen`. One counts once the SDK has acknowledged it with the changes
 * among what it honours (a listen the SDK refuses, on a 2025 connection or with a bad envelope,
 * never starts the poller); while any is open the connection is a subscriber of `subscriptions`,
 * its updates written to each such listen with the listen's id. A listen ends when it settles
 * (its `notifications/cancelled`, or an error) or with the connection. If the first poll shows
 * that polling cannot work (no key, a rejected key), each listen is ended with that error, as a
 * 2025 `resources/subscribe` is refused with it.
 */
export function followListens(
  transport: ListenTransport,
  subscriptions: ChangesSubscriptions,
  context: FailureContext,
): void {
  const { activity } = transport;
  /** Listens read that ask for the changes, not yet acknowledged. */
  const asked = new Set<Id>();
  const open = new Set<Id>();
  const notify: ChangesSubscriber = () => {
    for (const id of open) {
      const update: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: CHANGES_URI, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
      };
      transport.send(update).catch((error: unknown) => {
        context.log.debug('resource update not sent', { error: String(error) });
      });
    }
  };
  const end = (id: Id): void => {
    asked.delete(id);
    if (!open.delete(id) || open.size > 0) return;
    subscriptions.unsubscribe(notify);
  };
  /** Ends every open listen with `error`: the SDK forgets it, the client is told why. */
  const refuseAll = (error: Error): void => {
    const refusal = listenRefusal(error, context);
    for (const id of [...open]) {
      end(id);
      void transport.endRequest(id, refusal).catch(() => {});
    }
  };
  const begin = (id: Id): void => {
    if (!asked.delete(id) || open.has(id)) return;
    open.add(id);
    if (open.size > 1) return;
    // Its first poll takes the cursor.
    void subscriptions.subscribe(notify).then((fatal) => {
      if (fatal) refuseAll(fatal);
    });
  };

  activity.onRequest(({ id, method, params }) => {
    if (method === 'subscriptions/listen' && listensToChanges(params)) asked.add(id);
  });
  activity.onServerNotification((notification) => {
    const acknowledged = acknowledgedListen(notification);
    if (acknowledged !== undefined) begin(acknowledged);
  });
  // Cancelled by the client, or refused (an error for its id: then it never opened).
  activity.onSettled(({ id }) => end(id));
  activity.onClosed(() => {
    for (const id of [...open, ...asked]) end(id);
  });
}

/** The id of the listen an acknowledgement that honours the changes is for; undefined for any other notification. */
function acknowledgedListen({ method, params }: Notification): Id | undefined {
  if (method !== 'notifications/subscriptions/acknowledged') return undefined;
  const acknowledgement = params as
    | { notifications?: { resourceSubscriptions?: unknown }; _meta?: Record<string, unknown> }
    | undefined;
  const honoured = acknowledgement?.notifications?.resourceSubscriptions;
  const id = acknowledgement?._meta?.[SUBSCRIPTION_ID_META_KEY];
  if (!Array.isArray(honoured) || !honoured.includes(CHANGES_URI)) return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * `--http`'s look at each 2026 message before the SDK reads it: a listen is trimmed to what can be
 * honoured, and one on the changes waits for the poller's first poll. If that shows polling cannot
 * work (no key, a rejected key), the listen is refused with the reason, as a 2025
 * `resources/subscribe` is, instead of being acknowledged and then left silent. The poller is held
 * until the listen's stream ends, so the SDK's own subscription to the bus finds it running.
 */
export function admitListens(
  subscriptions: ChangesSubscriptions,
  context: FailureContext,
): (message: JSONRPCMessage) => Promise<ModernAdmission> {
  return async (message) => {
    const trimmed = honoredListen(message);
    if (!isListen(trimmed) || !listensToChanges(trimmed.params)) return { message: trimmed };
    const hold: ChangesSubscriber = () => {};
    const fatal = await subscriptions.subscribe(hold);
    if (fatal) {
      subscriptions.unsubscribe(hold);
      return { refusal: listenRefusal(fatal, context) };
    }
    return { message: trimmed, served: () => subscriptions.unsubscribe(hold) };
  };
}

/**
 * The event bus of `--http`'s 2026 handler: the SDK subscribes one listener per open listen stream
 * that honours something, and unsubscribes it when the stream ends. While any is open, the bus is
 * a subscriber of `subscriptions`, and each update goes to every stream.
 */
export function changesEventBus(subscriptions: ChangesSubscriptions): ServerEventBus {
  const listeners = new Set<(event: ServerEvent) => void>();
  const publish = (event: ServerEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {}
    }
  };
  const notify: ChangesSubscriber = () => publish({ kind: 'resource_updated', uri: CHANGES_URI });
  return {
    publish,
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1) void subscriptions.subscribe(notify);
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        listeners.delete(listener);
        if (listeners.size === 0) subscriptions.unsubscribe(notify);
      };
    },
  };
}
