/**
 * `check` on worker threads (src/check/pool.ts), with the built worker, dist/check-worker.cjs: the
 * same report as one thread gives, whatever the workers' timing; a worker that fails is a clear
 * message and an exit, never a crash or a hang.
 */

import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/check/matcher.js';
import { ScanWorkerError } from '../../src/check/pool.js';
import { INLINE_BYTES, MAX_LISTED_PER_FILE, scanPaths } from '../../src/check/scan.js';
import { AbortedError } from '../../src/errors.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { NODE, scrubbedEnv } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = join(ROOT, 'dist/check-worker.cjs');

const matcher = compileMatcher([
  { id: 'openai/gpt-4o', name: 'GPT-4o' },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini' },
  { id: 'quillon/quill-mini-2', name: 'Quill Mini 2', huggingfaceId: 'quillon/Quill-Mini-2-HF' },
]);

/** A tree of many small files and a few odd ones: batches for the worker and the main thread alike. */
function fixtureTree(): string {
  const root = tempFolder('mf-check-workers-');
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  write('.gitignore', 'ignored/\n');
  write('ignored/app.py', 'MODEL = "gpt-4o"\n');
  for (let i = 0; i < 120; i++) {
    const lines = [
      `# file ${i}`,
      i % 3 === 0 ? 'model = "openai/gpt-4o"' : 'x = 1',
      i % 5 === 0 ? 'fallback = "Quill Mini 2"  # model-feed-ignore' : 'y = 2',
      i % 7 === 0 ? 'legacy = "openai/gpt-4o-transcribe"' : 'z = 3',
      i % 11 === 0 ? 'hf = "quillon/quill-mini-3" → “GPT-4o mini” 😀' : '',
    ];
    write(
      `pkg-${i % 6}/mod-${i % 4}/file-${i}.${['py', 'ts', 'yaml', 'md'][i % 4]}`,
      `${lines.join('\r\n')}\n`,
    );
  }
  write('dist/bundle.min.js', `${'m("gpt-4o");'.repeat(3000)}m("gpt-4o-mini");`);
  write('latin1.txt', Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' gpt-4o\n')]));
  write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  write('huge.txt', 'gpt-4o\n'.repeat(200_000));
  symlinkSync(join(root, 'pkg-0/mod-0/file-0.py'), join(root, 'link.py'));
  return root;
}

/** Scan options that send every file to one worker, the one at `workerFile`. */
function throughWorker(workerFile: string) {
  return { maxFileSize: 1024 * 1024, threads: 2, inlineBytes: 0, workerFile, workersOnly: true };
}

/** A worker script that reports each batch it answers in a file, then runs the real worker. */
function countingWorker(folder: string): { file: string; batches: () => number[] } {
  const file = join(folder, 'counting-worker.cjs');
  const log = join(folder, 'batches.log');
  writeFileSync(log, '');
  writeFileSync(
    file,
    [
      "const { appendFileSync } = require('node:fs');",
      "const { parentPort } = require('node:worker_threads');",
      'const post = parentPort.postMessage.bind(parentPort);',
      `parentPort.postMessage = (reply) => { if (reply.outcomes) appendFileSync(${JSON.stringify(log)}, reply.outcomes.length + '\\n'); post(reply); };`,
      `require(${JSON.stringify(WORKER)});`,
    ].join('\n'),
  );
  return {
    file,
    batches: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number),
  };
}

describe('check on worker threads', () => {
  it('reports the same as one thread, and the worker did its share', async () => {
    const tree = fixtureTree();
    const options = { maxFileSize: 1024 * 1024 };
    const single = await scanPaths([tree], matcher, { ...options, threads: 1 });
    const worker = countingWorker(tempFolder('mf-check-worker-'));
    // Every file through the worker; then the worker and the main thread taking them as they come.
    const pooled = await scanPaths([tree], matcher, throughWorker(worker.file));
    expect(pooled).toEqual(single);
    // The fixture has what the comparison needs: a capped file, near misses, skipped files.
    expect(single.repeatsNotListed).toBe(3000 - MAX_LISTED_PER_FILE);
    expect(single.references.some((r) => r.modelId === null)).toBe(true);
    expect(single.counts).toMatchObject({ scanned: 124, tooLarge: 1, binary: 1, other: 0, unreadable: 0 });
    // Every file but the first: the main thread reads that one before the tree is past 0 bytes.
    expect(worker.batches().reduce((sum, n) => sum + n, 0)).toBe(126 - 1);
    const shared = await scanPaths([tree], matcher, {
      ...options,
      threads: 2,
      inlineBytes: 0,
      workerFile: WORKER,
    });
    expect(shared).toEqual(single);
  });

  it('gives the same order whatever the workers’ timing', async () => {
    const tree = fixtureTree();
    const single = await scanPaths([tree], matcher, { maxFileSize: 1024 * 1024, threads: 1 });
    // Four at once, on two cores: each worker's pace is what the others leave it.
    const runs = await Promise.all(
      [true, false, true, false].map((workersOnly) =>
        scanPaths([tree], matcher, {
          maxFileSize: 1024 * 1024,
          threads: 2,
          inlineBytes: 0,
          workerFile: WORKER,
          workersOnly,
        }),
      ),
    );
    for (const run of runs) expect(run).toEqual(single);
  });

  it.each([
    ['throws as it loads', 'throw new Error("simulated load failure");', /simulated load failure/],
    [
      'throws on a batch',
      'const { parentPort } = require("node:worker_threads"); parentPort.postMessage({ ready: true }); parentPort.on("message", () => { throw new Error("simulated crash"); });',
      /simulated crash/,
    ],
    ['exits', 'process.exit(3);', /exit code 3/],
    ['is missing', undefined, /Cannot find module/],
  ])('fails the scan with a clear message when the worker %s', async (_, source, reason) => {
    const folder = tempFolder('mf-check-worker-');
    const file = join(folder, 'worker.cjs');
    if (source !== undefined) writeFileSync(file, source);
    const tree = fixtureTree();
    const scan = scanPaths([tree], matcher, throughWorker(file));
    await expect(scan).rejects.toThrow(ScanWorkerError);
    await expect(scan).rejects.toThrow(/^A worker thread reading the files failed: /);
    await expect(scan).rejects.toThrow(reason);
  });

  it('ends a worker that fails a batch but would live on', async () => {
    const worker = beatingWorker([
      "const { parentPort } = require('node:worker_threads');",
      'parentPort.postMessage({ ready: true });',
      "parentPort.on('message', ({ id }) => parentPort.postMessage({ id, error: 'simulated: cannot read' }));",
    ]);
    const scan = scanPaths([fixtureTree()], matcher, throughWorker(worker.file));
    await expect(scan).rejects.toThrow('A worker thread reading the files failed: simulated: cannot read');
    await worker.expectEnded();
  });
});

/**
 * A worker script that appends a beat to a file as it starts and every 10 ms, then runs `lines`:
 * whether it has started, and whether it was ended (no beat for 200 ms).
 */
function beatingWorker(lines: readonly string[]) {
  const folder = tempFolder('mf-check-worker-');
  const file = join(folder, 'worker.cjs');
  const beats = join(folder, 'beats.log');
  writeFileSync(
    file,
    [
      "const { appendFileSync } = require('node:fs');",
      `const beat = () => appendFileSync(${JSON.stringify(beats)}, '.');`,
      'beat();',
      'setInterval(beat, 10);',
      ...lines,
    ].join('\n'),
  );
  const length = () => readFileSync(beats, 'utf8').length;
  return {
    file,
    started: () => existsSync(beats),
    async expectEnded() {
      const before = length();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(length()).toBe(before);
    },
  };
}

describe('check stopped by its signal (Ctrl-C)', () => {
  it('stops before the next file, with the worker', async () => {
    // A worker that takes batches and never answers: only the signal can end the scan.
    const worker = beatingWorker(["require('node:worker_threads').parentPort.postMessage({ ready: true });"]);
    const controller = new AbortController();
    const scan = scanPaths([fixtureTree()], matcher, {
      ...throughWorker(worker.file),
      signal: controller.signal,
    });
    // Ctrl-C once the worker runs (it has beaten): a fixed delay lost that race on a loaded machine.
    for (let waited = 0; !worker.started(); waited += 10) {
      if (waited > 10_000) throw new Error('the worker never started');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    await expect(scan).rejects.toThrow(AbortedError);
    await worker.expectEnded();
    const aborted = AbortSignal.abort();
    await expect(scanPaths([fixtureTree()], matcher, { maxFileSize: 1024, signal: aborted })).rejects.toThrow(
      AbortedError,
    );
  });
});

describe('check with a broken worker, end to end', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ tier: 'pro' });
  });
  afterAll(() => sandbox.close());

  it('exits 1 with one line saying so: no stack, no hang', async () => {
    // The package as installed, with a worker that fails as it loads.
    const copy = tempFolder('mf-check-broken-');
    for (const folder of ['bin', 'dist']) {
      mkdirSync(join(copy, folder));
      for (const name of readdirSync(join(ROOT, folder))) {
        if (name.endsWith('.cjs') || name.endsWith('.build-hash')) {
          copyFileSync(join(ROOT, folder, name), join(copy, folder, name));
        }
      }
    }
    writeFileSync(join(copy, 'dist/check-worker.cjs'), 'throw new Error("simulated worker failure");\n');
    // Past the bytes the main thread matches alone (INLINE_BYTES), in files under --max-file-size,
    // then files for the workers.
    const tree = tempFolder('mf-check-big-tree-');
    const big = 3 * 1024 * 1024;
    for (let i = 0; i <= INLINE_BYTES / big; i++) writeFileSync(join(tree, `a-${i}.txt`), 'x'.repeat(big));
    for (let i = 0; i < 40; i++) writeFileSync(join(tree, `b-${i}.py`), 'MODEL = "gpt-4o-mini"\n');
    const env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
    const child = spawn(NODE, [join(copy, 'bin/model-feed-mcp.cjs'), 'check', tree], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^Internal error in model-feed-mcp: A worker thread reading the files failed: simulated worker failure \(.*check-worker\.cjs\)\. Please report it\.\n$/,
    );
  }, 30_000);
});
