// npm run bench, part two: `watch`, the follower of the change feed. Two figures, medians of one run:
// - draining a backlog of 10,000 changes to stdout with --once: changes per second, and peak RSS;
// - the time from a change being published to its line on stdout, with --interval 1.
// Every process gets the same clean environment; the sandbox runs in this process, on loopback.
//
//   node scripts/bench-watch.mjs [--runs N] [--node PATH]

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = `${root}bin/model-feed-mcp.cjs`;
const rssHook = `${root}scripts/bench-rss-hook.cjs`;
const { values: options } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, node: { type: 'string' } },
});
const RUNS = Number(options.runs);
const node = options.node ?? process.execPath;
if (!existsSync(`${root}dist/index.cjs`)) throw new Error('dist/ is missing: run `npm run build` first');
const { startSandbox } = createRequire(import.meta.url)(`${root}dist/sandbox.cjs`);

const BACKLOG = 10_000;
const LATENCY_SAMPLES = 15;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const env = (sandbox) => ({
  PATH: process.env.PATH ?? '',
  MODEL_FEED_API_KEY: sandbox.key,
  MODEL_FEED_BASE_URL: sandbox.url,
});
const stateFile = () => join(mkdtempSync(join(tmpdir(), 'mf-bench-watch-')), 'state.json');

/** One `watch --once --since 0` drain: lines counted as they arrive, peak RSS reported at exit. */
function drainOnce(sandbox) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      node,
      ['--require', rssHook, bin, 'watch', '--once', '--since', '0', '--state', stateFile()],
      {
        env: env(sandbox),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let lines = 0;
    let first;
    let last;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      const now = performance.now();
      first ??= now;
      last = now;
      for (const byte of chunk) if (byte === 0x0a) lines++;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`watch exited ${code}: ${stderr}`));
      const rss = Number(/bench-maxrss (\d+)/.exec(stderr)?.[1]) / 1024;
      resolve({ lines, total: performance.now() - started, delivering: last - first, rss });
    });
  });
}

/** A running watcher at --interval 1; each publication is timed to its line on stdout. */
async function latency(sandbox) {
  const child = spawn(node, [bin, 'watch', '--interval', '1', '--state', stateFile()], {
    env: env(sandbox),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const arrivals = new Map();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    const now = performance.now();
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines) arrivals.set(JSON.parse(line).data.id, now);
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 100 && !stderr.includes('polling every'); i++) await wait(50);
  const samples = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    // A random phase against the poll: what a user sees on average.
    await wait(300 + Math.random() * 1000);
    const published = performance.now();
    const event = sandbox.publish();
    for (let j = 0; j < 300 && !arrivals.has(event.id); j++) await wait(5);
    if (!arrivals.has(event.id)) throw new Error(`change ${event.id} never arrived: ${stderr}`);
    samples.push(arrivals.get(event.id) - published);
  }
  child.kill('SIGTERM');
  return samples;
}

console.log(`\n## watch (${node === process.execPath ? 'this Node' : node}, ${process.version})\n`);
const backlog = await startSandbox({ tier: 'pro' });
const existing = (
  await (
    await fetch(`${backlog.url}/api/v1/changes?since=0&limit=100`, {
      headers: { authorization: `Bearer ${backlog.key}` },
    })
  ).json()
).items.length;
backlog.publishMany(BACKLOG - existing);
const drains = [];
for (let i = 0; i < RUNS; i++) drains.push(await drainOnce(backlog));
if (drains.some((d) => d.lines !== BACKLOG))
  throw new Error(`a drain delivered ${drains.map((d) => d.lines)} lines`);
await backlog.close();

const live = await startSandbox({ tier: 'pro' });
const samples = await latency(live);
await live.close();

const rate = (d) => (d.lines / d.total) * 1000;
console.log('| figure | median | target |');
console.log('|---|---|---|');
console.log(
  `| drain ${BACKLOG} changes to stdout, spawn to exit | ${median(drains.map((d) => d.total)).toFixed(0)} ms | |`,
);
console.log(`| changes per second, spawn to exit | ${median(drains.map(rate)).toFixed(0)} /s | ≥ 5,000 /s |`);
console.log(
  `| changes per second, first line to last | ${median(drains.map((d) => (d.lines / d.delivering) * 1000)).toFixed(0)} /s | |`,
);
console.log(`| peak RSS of the drain | ${median(drains.map((d) => d.rss)).toFixed(1)} MB | ≤ 80 MB |`);
console.log(
  `| published → on stdout, --interval 1 (${samples.length} changes) | ${median(samples).toFixed(0)} ms (max ${Math.max(...samples).toFixed(0)}) | ≤ 1,050 ms |`,
);
console.log(`\n${RUNS} drains; latency samples published at a random phase against the poll.`);
