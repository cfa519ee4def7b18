/**
 * Files read and matched on worker threads, beside the main thread. The main thread walks the tree
 * and queues the files. Each worker, once it says it is ready, is sent batches of them (sent sooner,
 * they would wait for it while the main thread could match them); it reads and matches them
 * (scan-file.ts, bundled alone as dist/check-worker.cjs: neither the MCP SDK nor zod) and sends back
 * their outcomes. The main thread matches what the workers do not hold (`take`), and the caller puts
 * the outcomes in walk order. The matcher is compiled once, on the main thread: its tables are
 * shared memory, which a worker receives without a copy.
 *
 * A worker that fails, or cannot start, fails the scan with a message saying so; every worker is
 * ended when the scan ends, fails or is given up, so none can keep the process alive.
 */

import type { CompiledMatcher } from './matcher.js';
import type { FileOutcome } from './scan-file.js';

/** What a worker starts with: its `workerData`. */
export interface WorkerSetup {
  compiled: CompiledMatcher;
  maxFileSize: number;
}

/**
 * Files to read and match, main thread to worker: each path, the tree it must be inside, and how
 * many of its references may be listed (scan-file.ts).
 */
export interface WorkerBatch {
  id: number;
  files: { path: string; within?: string; listAtMost?: number }[];
}

/**
 * Worker to main thread: that it is ready for batches (sent once, first), or a batch's outcomes, one
 * per path in order, or why the batch failed.
 */
export type WorkerReply =
  | { ready: true }
  | { id: number; outcomes: FileOutcome[] }
  | { id: number; error: string };

/** A file queued: its index in the walk, the path to open, the tree it must be inside, its cap. */
export interface QueuedFile {
  index: number;
  path: string;
  within?: string;
  listAtMost?: number;
}

/**
 * Files per batch, and batches a worker holds at once (one being matched, one waiting, so that it
 * does not wait for the main thread between two). Larger batches, or a third held, scanned a large
 * tree no faster.
 */
export const BATCH_FILES = 16;
const BATCHES_PER_WORKER = 2;

export interface PoolOptions {
  /** The worker's script: dist/check-worker.cjs. */
  file: string;
  workers: number;
  setup: WorkerSetup;
  /** Each file's outcome, by its index, in whatever order they come. */
  onOutcome(index: number, outcome: FileOutcome): void;
}

export interface ScanPool {
  /** Queues a file; a worker with room for a batch is sent one at once. */
  add(file: QueuedFile): void;
  /** How many files are queued and not yet sent. */
  readonly queued: number;
  /** Up to a batch of queued files, for the main thread to match itself. */
  take(): QueuedFile[];
  /** Says the walk is over: what is queued may go to the workers in batches less than full. */
  walked(): void;
  /** Resolves after a turn of the event loop, in which the workers' answers come in. */
  turn(): Promise<void>;
  /** Resolves once every file sent has its outcome, with the workers ended; rejects on a failure. */
  finish(): Promise<void>;
  /** Ends the workers now, whatever is left. */
  close(): Promise<void>;
  /** Throws the failure of a worker, if one failed. */
  check(): void;
}

export class ScanWorkerError extends Error {
  override name = 'ScanWorkerError';
}

export function startPool(options: PoolOptions): ScanPool {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const queue: QueuedFile[] = [];
  let head = 0;
  /** Each batch sent and not answered: its files' indexes. */
  const sent = new Map<number, number[]>();
  let batches = 0;
  let failure: ScanWorkerError | undefined;
  let closed: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let changed: Promise<void> | undefined;
  /** Resolves at the next answer, failure or close. */
  const nextChange = () => {
    changed ??= new Promise<void>((resolve) => {
      wake = () => {
        changed = undefined;
        resolve();
      };
    });
    return changed;
  };
  const notify = () => wake?.();

  const close = () => {
    closed ??= Promise.all(workers.map(({ worker }) => worker.terminate())).then(() => undefined);
    notify();
    return closed;
  };
  const fail = (reason: string) => {
    if (failure || closed) return;
    failure = new ScanWorkerError(`A worker thread reading the files failed: ${reason}`);
    void close();
  };

  const workers = Array.from({ length: options.workers }, (_, n) => {
    const worker = new Worker(options.file, { workerData: options.setup });
    const state = { worker, batches: 0, ready: false };
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        state.ready = true;
        dispatch();
        notify();
        return;
      }
      const indexes = sent.get(reply.id);
      sent.delete(reply.id);
      state.batches--;
      if ('error' in reply) return fail(reply.error);
      if (!indexes || indexes.length !== reply.outcomes.length) {
        return fail(`worker ${n} answered a batch it was not sent (${reply.id})`);
      }
      reply.outcomes.forEach((outcome, i) => {
        options.onOutcome(indexes[i]!, outcome);
      });
      dispatch();
      notify();
    });
    worker.on('error', (error) => fail(`${error.message} (${options.file})`));
    worker.on('messageerror', (error) => fail(`an answer could not be read: ${error.message}`));
    worker.on('exit', (code) => fail(`worker ${n} stopped (exit code ${code})`));
    return state;
  });

  const take = (): QueuedFile[] => {
    const files = queue.slice(head, head + BATCH_FILES);
    head += files.length;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
    return files;
  };

  /** Whether the walk is over: from then on, a batch may be less than full. */
  let walked = false;
  /**
   * Sends queued files to every worker that has room for a batch. Only full batches while the walk
   * goes on: sent as each file came, batches of one file or two kept the worker waiting on messages
   * most of its time.
   */
  function dispatch() {
    if (failure || closed) return;
    for (const state of workers) {
      while (
        state.ready &&
        state.batches < BATCHES_PER_WORKER &&
        queue.length - head >= (walked ? 1 : BATCH_FILES)
      ) {
        const files = take();
        const id = batches++;
        sent.set(
          id,
          files.map((file) => file.index),
        );
        state.worker.postMessage({
          id,
          files: files.map(({ path, within, listAtMost }) => ({ path, within, listAtMost })),
        } satisfies WorkerBatch);
        state.batches++;
      }
    }
  }

  const check = () => {
    if (failure) throw failure;
  };

  return {
    add(file) {
      queue.push(file);
      dispatch();
    },
    get queued() {
      return queue.length - head;
    },
    take,
    walked() {
      walked = true;
      dispatch();
    },
    turn: () => new Promise<void>((resolve) => setImmediate(resolve)),
    async finish() {
      // Each worker's start is waited for too, so that one that cannot start is always reported,
      // however soon the main thread was done without it.
      const pending = () => sent.size > 0 || workers.some((state) => !state.ready);
      while (!failure && !closed && pending()) await nextChange();
      await close();
      check();
    },
    close,
    check,
  };
}
