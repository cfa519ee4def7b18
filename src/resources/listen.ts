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
  type Transport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { CHANGES_URI } from './changes.js';
import type { ChangesSubscriber, ChangesSubscriptions } from './changes-subscriptions.js';

type Id = string | number;

interface ListenParams {
  notifications?: { resourceSubscriptions?: unknown } & Record<string, unknown>;
}

function isListen(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; params?: ListenParams } {
  return 'method' in message && message.method === 'subscriptions/listen' && 'id' in message;
}

/**
 * A listen with its resource subscriptions cut to those this server can honour (the changes
 * resource); any other message as it is. A malformed filter is left for the SDK to refuse.
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

/** Whether a (trimmed) listen asks to hear of the changes resource. */
function listensToChanges(message: JSONRPCMessage & { params?: ListenParams }): boolean {
  const asked = message.params?.notifications?.resourceSubscriptions;
  return Array.isArray(asked) && asked.includes(CHANGES_URI);
}

/**
 * The listens on one stdio connection, observed on its transport after the SDK's `serveStdio` is
 * connected to it: each listen is trimmed before the SDK reads it, and while one on the changes is
 * open the connection is a subscriber of `subscriptions`, its updates written to each such listen
 * with the listen's id. A listen ends with its `notifications/cancelled` or the connection.
 */
export function followListens(transport: Transport, subscriptions: ChangesSubscriptions, log: Logger): void {
  const open = new Set<Id>();
  const notify: ChangesSubscriber = () => {
    for (const id of open) {
      const update: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: CHANGES_URI, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
      };
      transport.send(update).catch((error: unknown) => {
        log.debug('resource update not sent', { error: String(error) });
      });
    }
  };
  const end = (id: Id): void => {
    if (!open.delete(id) || open.size > 0) return;
    subscriptions.unsubscribe(notify);
  };

  const served = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const trimmed = honoredListen(message);
    served?.(trimmed, extra);
    if (isListen(trimmed) && listensToChanges(trimmed) && !open.has(trimmed.id)) {
      open.add(trimmed.id);
      // Its first poll takes the cursor; a fatal one (a rejected key) was logged by the poller.
      if (open.size === 1) void subscriptions.subscribe(notify);
    } else if ('method' in trimmed && trimmed.method === 'notifications/cancelled') {
      const cancelled = (trimmed.params as { requestId?: Id } | undefined)?.requestId;
      if (cancelled !== undefined) end(cancelled);
    }
  };
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const id of [...open]) end(id);
    closed?.();
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
