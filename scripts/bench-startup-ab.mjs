// An interleaved A/B of start-up between two builds, for deciding whether a build-time change pays.
// Both builds run in the
// same loop, alternating, each turn in another order, beside bare node: on a shared, noisy machine
// only figures from one such run compare.
//
//   node scripts/bench-startup-ab.mjs [--runs N] [--node PATH]... A B
//
// A and B are folders each holding a copy of bin/ and dist/ (the bin loads ../dist/server.cjs).
// Timed as in scripts/bench.mjs's start-up table: spawn → the opening answered → tools/list
// answered, for the 2025 opening (initialize) and the 2026-07-28 one (server/discover), from a first
// start (no code cache) and a warm one. A build's code cache is whichever it keeps: Node's compile
// cache (Node >= 22.1), in the cache folder each build is given, or an older build's V8 cache files
// beside its bundle. Prints medians, ratios to bare node, and B's gain over A.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, OPENINGS, startOnce } from './bench-startup.mjs';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '15' },
    node: { type: 'string', multiple: true },
  },
});
if (positionals.length !== 2) throw new Error('usage: bench-startup-ab.mjs [--runs N] [--node PATH]... A B');
const builds = positionals.map((dir) => {
  const root = resolve(dir);
  if (!existsSync(join(root, 'dist/server.cjs'))) throw new Error(`${root}/dist/server.cjs is missing`);
  const cacheHome = join(root, 'cache-home');
  rmSync(cacheHome, { recursive: true, force: true });
  mkdirSync(cacheHome);
  return { name: dir, bin: join(root, 'bin/model-feed-mcp.cjs'), dist: join(root, 'dist'), cacheHome };
});
const RUNS = Number(options.runs);
const nodes = options.node ?? [process.execPath];
const env = {
  PATH: process.env.PATH ?? '',
  MODEL_FEED_API_KEY: 'mfsk_bench_key_0123456789',
  MODEL_FEED_BASE_URL: 'https://feed.invalid',
};

/** The build's code cache files: Node's compile cache in its cache folder, or V8 cache files beside its bundle. */
const cacheFiles = (build) => [
  ...readdirSync(build.cacheHome, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name)),
  ...readdirSync(build.dist)
    .filter((name) => name.endsWith('.v8cache'))
    .map((name) => join(build.dist, name)),
];
const envOf = (build) => ({ ...env, XDG_CACHE_HOME: build.cacheHome });

const KINDS = ['2025 first', '2025 warm', '2026 first', '2026 warm'];
const fmt = (value) => value.toFixed(1);

for (const node of nodes) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  // Not counted: they make each build's code cache and warm the file cache.
  for (let i = 0; i < 3; i++) for (const build of builds) await startOnce(node, envOf(build), build.bin);
  const slots = [{ bare: true }];
  for (const kind of KINDS) for (const build of builds) slots.push({ kind, build });
  const times = { bare: [] };
  for (const { kind, build } of slots.slice(1))
    times[`${build.name} ${kind}`] = { initialize: [], toolsList: [] };
  for (let i = 0; i < RUNS; i++) {
    // Each turn starts at another slot, and every other turn runs B before A.
    const order = slots.map((_, k) => slots[(i + k) % slots.length]);
    if (i % 2) order.reverse();
    for (const { bare, kind, build } of order) {
      if (bare) {
        times.bare.push((await startOnce(node, env)).firstOutput);
        continue;
      }
      const caches = cacheFiles(build);
      if (kind.endsWith('first')) for (const file of caches) unlinkSync(file);
      const run = await startOnce(node, envOf(build), build.bin, OPENINGS[kind.slice(0, 4)]);
      times[`${build.name} ${kind}`].initialize.push(run.initialize);
      times[`${build.name} ${kind}`].toolsList.push(run.toolsList);
    }
  }
  const bare = median(times.bare);
  console.log(`\n${node} (${version}), ${RUNS} runs each, bare node ${fmt(bare)} ms (median)\n`);
  console.log('| start | mark | A ms | A ratio | B ms | B ratio | B vs A |');
  console.log('|---|---|---|---|---|---|---|');
  for (const kind of KINDS) {
    for (const mark of ['initialize', 'toolsList']) {
      const [a, b] = builds.map((build) => median(times[`${build.name} ${kind}`][mark]));
      const gain = ((a - b) / a) * 100;
      console.log(
        `| ${kind} | ${mark === 'initialize' ? 'opening' : 'tools/list'} | ${fmt(a)} | ${(a / bare).toFixed(2)} x | ${fmt(b)} | ${(b / bare).toFixed(2)} x | ${gain >= 0 ? '-' : '+'}${Math.abs(gain).toFixed(1)} % |`,
      );
    }
  }
}
console.log(`\nA = ${builds[0].name}, B = ${builds[1].name}; "B vs A": B's time change (- is faster)`);
