/**
 * Abort helpers. An attempt's signal is "the caller's signal OR a timer". AbortSignal.any with
 * AbortSignal.timeout would express that, but its timer and listeners outlive a call that finished
 * early (15 s each by default), so thousands of fast calls would pile them up; here both are
 * released the moment the attempt settles.
 */

export interface Deadline {
  readonly signal: AbortSignal;
  /** True when the timer, not the parent signal, aborted it. */
  timedOut(): boolean;
  /** Clears the timer and unhooks the parent; call it when the work settles. */
  dispose(): void;
}

export function deadline(parent: AbortSignal | undefined, ms: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError'));
  }, ms);
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Resolves after `ms`, or rejects as soon as the signal aborts. `unref`: the timer alone does not
 * keep the process alive (a background poll is never a reason to stay up).
 */
export function sleep(ms: number, signal: AbortSignal | undefined, { unref = false } = {}): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (unref) timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
