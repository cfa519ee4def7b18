/**
 * A one-shot command's output reaches a reader that takes its time, whole. A pipe's reader takes
 * what the pipe holds (64 KB) and no more until it reads; the rest waits in the process. Exiting
 * on a timer once the command was done cut it short, with exit code 0: `check --format json | slow`
 * got 63 KB of a 14 MB document, broken JSON and a passing build.
 */

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

/** The command's stdout and exit code, its stdout read only after `waitMs`. */
function runReadLate(args: string[], env: Record<string, string>, waitMs: number) {
  return new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(NODE, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    // Listened to, then paused: a stream nobody listens to is drained and dropped by Node at exit.
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.pause();
    const timer = setTimeout(() => child.stdout.resume(), waitMs);
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      clearTimeout(killer);
      resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

describe('a slow reader of stdout', () => {
  it('gets all of check --format json, however late it reads', async () => {
    const tree = tempFolder('mf-slow-reader-');
    // The 1,000 references a file lists at most: a document of some 380 KB, six times what a pipe holds.
    writeFileSync(join(tree, 'models.txt'), 'use openai/gpt-4o here\n'.repeat(1000));
    const env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
    const { code, stdout } = await runReadLate(
      ['check', tree, '--format', 'json', '--fail-on', 'none', '--cache-ttl', '0'],
      env,
      1500,
    );
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(300_000);
    const document = JSON.parse(stdout);
    expect(document.references).toHaveLength(1000);
  });
});
