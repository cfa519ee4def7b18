/**
 * The subscribers to `model-feed://changes` and the one poller that runs for them. Over stdio a
 * server has one client, so one set per server; `--http` shares one set across its sessions, so
 * any number of subscribed sessions costs one poll per interval and each hears of a change once.
 * The poller runs while the set is not empty: it starts with the first subscriber and stops with
 * the last one leaving, by unsubscribe or by the end of its session.
 */

import { ChangesPoller, type ChangesPollerOptions } from './changes-poller.js';

/** Told that the resource changed; one per session. */
export type ChangesSubscriber = () => void;

export class ChangesSubscriptions {
  private readonly subscribers = new Set<ChangesSubscriber>();
  private readonly poller: ChangesPoller;

  constructor(options: Omit<ChangesPollerOptions, 'onChange'>) {
    this.poller = new ChangesPoller({
      ...options,
      onChange: () => {
        for (const notify of this.subscribers) {
          // One session's failure (closed under it) must not keep the news from the others.
          try {
            notify();
          } catch {}
        }
      },
    });
  }

  has(subscriber: ChangesSubscriber): boolean {
    return this.subscribers.has(subscriber);
  }

  /**
   * Adds a subscriber (again is a no-op) and starts polling unless it runs. Resolves as the
   * poller's first poll settles (ChangesPoller.start); a subscriber joining a running poller waits
   * for nothing.
   */
  subscribe(subscriber: ChangesSubscriber): Promise<Error | undefined> {
    this.subscribers.add(subscriber);
    return this.poller.start();
  }

  /** Removes a subscriber; polling stops, its request in flight aborted, with the last one. */
  unsubscribe(subscriber: ChangesSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.poller.stop();
  }
}
