/**
 * A resource that does not exist, answered with the code of the client's era: 2025-11-25 says
 * -32002 ("Resource not found"), 2026-07-28 says -32602 (SEP-2164). The SDK's v2 sends -32602 in
 * both eras (its codecs re-encode a thrown -32002), so a 2025 server puts its era's code back on
 * the wire itself: the read marks its request, and the connection's `send` recodes that one answer.
 */

import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import { RESOURCE_NOT_FOUND } from '../request-errors.js';

/** 2025-11-25's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND_2025 = -32002;

/** A read of a URI that names nothing here; `data.uri` names it, as both revisions ask. */
export class ResourceNotFound extends Error {
  readonly code = RESOURCE_NOT_FOUND;
  readonly data: { uri: string };
  constructor(uri: string, message: string) {
    super(message);
    this.data = { uri };
  }
}

/** The answers of one 2025 server to recode: the requests its reads found nothing for. */
export class LegacyNotFoundCodes {
  private readonly marked = new Set<RequestId>();

  /**
   * The request `id` is answered "not found". A cancelled one gets no answer, so is not kept, nor
   * kept once cancelled later: a later request may reuse its id.
   */
  mark(id: RequestId, signal: AbortSignal): void {
    if (signal.aborted) return;
    this.marked.add(id);
    signal.addEventListener('abort', () => this.marked.delete(id), { once: true });
  }

  /**
   * The transport, its `send` recoding each marked answer. The transport's own object: the SDK's
   * stdio entry hands a channel whose other members it keeps calling, so a wrapper would have to
   * forward every one of them.
   */
  onWire(transport: Transport): Transport {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.recode(message), options);
    return transport;
  }

  private recode(message: JSONRPCMessage): JSONRPCMessage {
    if (!('error' in message) || message.id === undefined || !this.marked.delete(message.id)) return message;
    return { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND_2025 } };
  }
}
