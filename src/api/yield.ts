/** Lets timers, I/O and signals run between slices of long work (a large body being checked). */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
