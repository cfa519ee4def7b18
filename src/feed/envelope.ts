/**
 * The one envelope every sink delivers (stdout, jsonl, exec stdin, webhook body, atom entry):
 * `{type, timestamp, deliveryId, data}`, with `data` the change event exactly as the service sent it.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { nodeCrypto } from '../lazy-node.js';
import { escapeJsonText } from '../text/terminal.js';

export const ENVELOPE_TYPE = 'model_feed.change';

export interface Envelope {
  type: typeof ENVELOPE_TYPE;
  /** When this delivery was made, ISO 8601. */
  timestamp: string;
  /** The event id and a hash of its content: the same for a redelivery, new when the item changed. */
  deliveryId: string;
  /** The ChangeEvent as the service sent it, unknown fields kept, nothing added. */
  data: Readonly<Record<string, unknown>>;
}

/** One change on its way to a sink: the envelope, and the parsed event for renderings. */
export interface Delivery {
  envelope: Envelope;
  event: ChangeEvent;
}

/** JSON with object keys sorted, so that the same content hashes the same whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `<event id>_<16 hex digits of SHA-256 over the event's canonical JSON>`. A receiver that
 * deduplicates on it drops a redelivery after a crash, but not a verification update or a new
 * price, which change the content.
 */
export function deliveryIdOf(data: Readonly<Record<string, unknown>>, eventId: string): string {
  const hash = nodeCrypto().createHash('sha256').update(canonicalJson(data)).digest('hex').slice(0, 16);
  return `${eventId}_${hash}`;
}

export function createDelivery(
  data: Readonly<Record<string, unknown>>,
  event: ChangeEvent,
  now: Date,
): Delivery {
  return {
    envelope: {
      type: ENVELOPE_TYPE,
      timestamp: now.toISOString(),
      deliveryId: deliveryIdOf(data, event.id),
      data,
    },
    event,
  };
}

/**
 * The envelope as one line of JSON, without the newline. Characters a terminal would act on
 * (C1 controls, bidi overrides, line separators) are written as \u escapes: the same JSON value,
 * safe to print.
 */
export function envelopeJson(envelope: Envelope): string {
  return escapeJsonText(JSON.stringify(envelope));
}
