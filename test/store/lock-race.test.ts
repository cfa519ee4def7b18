/**
 * Many processes taking over one stale lock at the same moment: exactly one may end up holding it.
 * Real processes (the lock is a file shared between them), kept alive across trials and driven over
 * IPC, so 30 trials cost the start of 10 processes, not of 300.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROCESSES = 10;
const TRIALS = 30;

type Outcome = { pid: number; result: 'held' | 'refused' | 'failed'; holder?: number; detail?: string };

// The worker takes the lock when told, at the instant it is told, and holds it until told to let go.
const WORKER = `
import { acquireLock, LockedError } from './lock.mjs';
let lock;
process.on('message', async (message) => {
  if (message.release) {
    await lock?.release();
    lock = undefined;
    process.send({ released: true });
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, message.at - Date.now())));
  try {
    lock = await acquireLock(message.path);
    process.send({ pid: process.pid, result: 'held' });
  } catch (error) {
    const refused = error instanceof LockedError;
    const holder = refused ? error.holder?.pid : undefined;
    process.send({ pid: process.pid, result: refused ? 'refused' : 'failed', holder, detail: String(error) });
  }
});
process.send({ ready: true });
`;

let folder: string;
let workers: ChildProcess[] = [];

function nextMessage<T>(child: ChildProcess, timeoutMs = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${child.pid} did not answer`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
  });
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mf-lock-race-'));
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/store/lock.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(folder, 'lock.mjs'),
    logLevel: 'silent',
  });
  writeFileSync(join(folder, 'worker.mjs'), WORKER);
  workers = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, [join(folder, 'worker.mjs')], {
      // No NODE_EXTRA_CA_CERTS and the like: a scrubbed environment starts faster.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  await Promise.all(workers.map((worker) => nextMessage(worker, 20_000)));
});

afterAll(async () => {
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.exitCode !== null || worker.signalCode !== null) return resolve();
          worker.once('exit', () => resolve());
          worker.kill('SIGKILL');
        }),
    ),
  );
  rmSync(folder, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  return Number(child.stdout.toString());
}

describe('taking over a stale lock', () => {
  it(`${PROCESSES} processes at once, ${TRIALS} times: one holder each time, never two`, async () => {
    const dead = deadPid();
    const stale = [
      JSON.stringify({ pid: dead, host: hostname(), startedAt: new Date().toISOString() }),
      // Not a lock this code wrote: stale too.
      '{"pid": 12',
      JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2001-01-01T00:00:00Z' }),
    ];
    const doubles: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const path = join(folder, `trial-${trial}.lock`);
      writeFileSync(path, stale[trial % stale.length] as string);
      const outcomes = workers.map((worker) => nextMessage<Outcome>(worker));
      // Every worker starts at the same instant, a little ahead so each has the message by then.
      const at = Date.now() + 30;
      for (const worker of workers) worker.send({ path, at });
      const results = await Promise.all(outcomes);
      const failed = results.filter((r) => r.result === 'failed');
      expect(failed, JSON.stringify(failed)).toEqual([]);
      const holders = results.filter((r) => r.result === 'held');
      if (holders.length !== 1) doubles.push(`trial ${trial}: ${holders.length} holders`);
      else {
        const winner = holders[0]?.pid;
        expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(winner);
        // Each refusal names the process that holds the lock (or is taking it over), never the dead one.
        for (const refused of results.filter((r) => r.result === 'refused'))
          expect(refused.holder).toBe(winner);
      }
      // No guard or temp file is left behind: only the lock and the workers' own files.
      expect(readdirSync(folder).filter((name) => /\.(takeover|tmp)$/.test(name))).toEqual([]);
      const released = workers.map((worker) => nextMessage(worker));
      for (const worker of workers) worker.send({ release: true });
      await Promise.all(released);
    }
    expect(doubles).toEqual([]);
  });
});
