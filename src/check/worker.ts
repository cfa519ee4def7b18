/**
 * A worker thread of `check` (pool.ts), bundled alone as dist/check-worker.cjs: it reads and matches
 * the files it is sent, batch by batch, and answers with their outcomes. It holds nothing of the
 * command line or the server; the matcher's tables are the main thread's, shared.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { matcherFrom } from './matcher.js';
import type { WorkerBatch, WorkerReply, WorkerSetup } from './pool.js';
import { scanFile } from './scan-file.js';

const { compiled, maxFileSize } = workerData as WorkerSetup;
const matcher = matcherFrom(compiled);

parentPort?.postMessage({ ready: true } satisfies WorkerReply);
parentPort?.on('message', ({ id, files }: WorkerBatch) => {
  let reply: WorkerReply;
  try {
    reply = {
      id,
      outcomes: files.map((file) => scanFile(file.path, matcher, maxFileSize, file.within, file.listAtMost)),
    };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
