/**
 * Runs a pure module's functions on one value in a worker that is ended if it takes too long: a
 * regular expression that backtracks cannot be interrupted any other way. For tests that a scan is
 * linear in its input's length: a quadratic one on a megabyte runs for minutes, a linear one for
 * a fraction of a second, so a generous bound tells them apart on any machine.
 */

import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';

/**
 * @param entry the module's source path
 * @param calls JavaScript run in the worker with the module's exports as `m` and the value as `value`
 */
export function runInWorker(
  entry: string,
  calls: string,
  value: string,
  boundMs: number,
): Promise<'done' | 'still running'> {
  const bundle = buildSync({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
  }).outputFiles[0]?.text;
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const module = { exports: {} };
    new Function('module', 'exports', 'require', workerData.bundle)(module, module.exports, require);
    const m = module.exports;
    const value = workerData.value;
    ${calls};
    parentPort.postMessage('done');`;
  const worker = new Worker(code, { eval: true, workerData: { bundle, value } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve('still running');
    }, boundMs);
    worker.once('message', () => {
      clearTimeout(timer);
      void worker.terminate();
      resolve('done');
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
