/**
 * What sits at a state, lock or cache path may be anything: a FIFO there once blocked the open
 * itself, so the watcher hung and ignored SIGTERM, and `call` outlived its timeout. The built CLI,
 * against the sandbox, with a FIFO at each of those paths.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { type RawProcess, run, scrubbedEnv, spawnRaw } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const folders: string[] = [];
const processes: RawProcess[] = [];
afterEach(() => {
  for (const { child } of processes.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'mf-special-'));
  folders.push(folder);
  return folder;
}

const env = (extra: Record<string, string> = {}) =>
  scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url, ...extra });

/** Resolves with the exit, or undefined when the process is still running after `ms`. */
function exitWithin(process: RawProcess, ms: number) {
  const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));
  return Promise.race([process.exited, late]);
}

/**
 * A watcher with `fifo` made a FIFO: it must end by itself, or at the latest on SIGTERM, with
 * exit 1 and a message naming the path.
 */
async function watchWithFifo(statePath: string, fifo: string, sink: string[] = []) {
  execFileSync('mkfifo', [fifo]);
  const watcher = spawnRaw(env(), ['watch', '--since', '0', '--state', statePath, ...sink]);
  processes.push(watcher);
  let exit = await exitWithin(watcher, 5000);
  const ignoredSigterm = exit === undefined;
  if (exit === undefined) {
    watcher.child.kill('SIGTERM');
    exit = await exitWithin(watcher, 3000);
  }
  expect(exit, `still running after SIGTERM; stderr: ${watcher.stderr()}`).toBeDefined();
  expect(ignoredSigterm, 'it waited for a signal to end').toBe(false);
  expect(exit?.code).toBe(1);
  return watcher.stderr();
}

describe('a FIFO where a file of ours belongs', () => {
  it('at the state path: the watcher exits 1 at once, naming the path, and is not stuck', async () => {
    const state = join(tempFolder(), 'state.json');
    const stderr = await watchWithFifo(state, state);
    expect(stderr).toContain(`${state} is not a regular file (it is a FIFO)`);
  });

  it("at the lock's path: the same", async () => {
    const state = join(tempFolder(), 'state.json');
    const stderr = await watchWithFifo(state, `${state}.lock`);
    expect(stderr).toContain(`${state}.lock is not a regular file (it is a FIFO)`);
  });

  it('at the --jsonl path: refused at once, naming it, nothing written into the pipe', async () => {
    const folder = tempFolder();
    const log = join(folder, 'changes.jsonl');
    const stderr = await watchWithFifo(join(folder, 'state.json'), log, ['--jsonl', log]);
    expect(stderr).toContain(`--jsonl ${log} is not a regular file (it is a FIFO)`);
  });

  it('at the --atom path: the sink says so and replaces it with its feed; nothing waits on the pipe', async () => {
    const folder = tempFolder();
    const feed = join(folder, 'feed.xml');
    execFileSync('mkfifo', [feed]);
    const watcher = await run(
      ['watch', '--since', '0', '--once', '--state', join(folder, 'state.json'), '--atom', feed],
      env(),
      {
        timeoutMs: 10_000,
      },
    );
    expect(watcher.code, watcher.stderr).toBe(0);
    expect(watcher.stderr).toContain(`atom feed ${feed} could not be read (ENOTFILE)`);
    expect(readFileSync(feed, 'utf8')).toContain('<feed');
  });

  it('at a cache entry and at the 429 record: call answers from the service, within its timeout', async () => {
    const home = tempFolder();
    const first = await run(['call', 'search_models', '--vendor', 'openai'], env({ XDG_CACHE_HOME: home }));
    expect(first.code, first.stderr).toBe(0);
    const folder = join(home, 'model-feed-mcp');
    const [entry] = readdirSync(folder);
    rmSync(join(folder, entry as string));
    execFileSync('mkfifo', [join(folder, entry as string)]);
    execFileSync('mkfifo', [join(folder, (entry as string).replace(/-[0-9a-z]+\.json$/, '-429.json'))]);
    const again = await run(
      ['call', 'search_models', '--vendor', 'openai', '--timeout', '3000'],
      env({ XDG_CACHE_HOME: home }),
      { timeoutMs: 10_000 },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
  });
});
