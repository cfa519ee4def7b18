/**
 * A small cap on concurrent upstream requests: a burst of tool calls must not open a socket each
 * (a proxy or the service may count connections). Waiters leave the queue when their call aborts
 * or when their time to wait runs out.
 */

/** A slot did not free up within the wait allowed. */
export class QueueTimeout extends Error {}

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  async run<T>(signal: AbortSignal | undefined, maxWaitMs: number, task: () => Promise<T>): Promise<T> {
    await this.acquire(signal, maxWaitMs);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined, maxWaitMs: number): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // The common case costs no timer and no listener.
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (reason: unknown): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(reason);
      };
      const grant = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => leave(signal?.reason);
      const timer = setTimeout(() => leave(new QueueTimeout()), maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}
