/**
 * What every sink is: one file per sink (stdout, jsonl, exec, webhook, atom), each making one
 * attempt per `deliver`. Retries, backoff and the cursor belong to the follower, not to sinks.
 */

import type { MarkedDelivery } from '../news.js';

export interface Sink {
  /** For logs and the status line, no secret in it: "stdout", "jsonl ./changes.jsonl", "webhook https://hooks.slack.com/…". */
  readonly label: string;
  /**
   * Hands one change over, marked new or an update (news.ts); resolves once the destination accepted it. Throws a DeliveryError when
   * it did not. `signal` aborts an attempt in progress (shutdown): the change is then redelivered
   * on the next run.
   */
  deliver(delivery: MarkedDelivery, signal: AbortSignal): Promise<void>;
  /** Makes every change delivered so far durable. Called before the cursor moves past them. */
  flush(signal: AbortSignal): Promise<void>;
  /** Releases files, sockets and children. */
  close(): Promise<void>;
}
