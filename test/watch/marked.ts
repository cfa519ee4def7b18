/** Deliveries as the watcher hands them to sinks: marked, here as new changes. */

import type { ChangeEvent } from '../../src/api/schemas.js';
import { createDelivery } from '../../src/feed/envelope.js';
import { DeliveredMemory, type MarkedDelivery, markDelivery } from '../../src/watch/news.js';

export function newDelivery(
  data: Readonly<Record<string, unknown>>,
  event: ChangeEvent,
  now: Date,
): MarkedDelivery {
  const delivery = createDelivery(data, event, now);
  return markDelivery(delivery, new DeliveredMemory().mark(delivery));
}
