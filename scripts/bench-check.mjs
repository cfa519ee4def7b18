// `check` on a big tree against ripgrep doing the same search, in one run:
//
//   node scripts/bench-check.mjs [--runs N] [--files N] [--models N]
//
// - A generated tree: 20,000 files of 10 KB (200 MB) of code-like text, a model id or name in some;
//   a catalog of 5,000 models, served by a stub of the service on loopback (no changes, no history).
//   The stub mirrors the service's fields: each model has every field spec/service.md's Model
//   lists. The client's lenient parse builds an issue for each absent one (5,000 models parsed in
//   87-94 ms with four left out, 42-48 ms with all), a cost the real service never causes.
// - `check --format json --cache-ttl 0` (every run reads the catalog again) against
//   `rg -F -i -c -f <every id and name>` on the same tree: wall time, medians, and the ratio.
// - Peak RSS of `check` (preloaded hook, process.resourceUsage at exit), and its CPU time over its
//   wall time: how many cores it kept busy (2 on two free cores; the machine's load is printed).
// - Ten 4 MiB files of near misses only, as SARIF: the suggestion search at its heaviest.
// - One minified line: a single 50 MB file with no newline, `--max-file-size 64`, against its share
//   (50/200) of the tree's time; and the same net of what any run costs before it reads a file
//   (`check` of an empty folder: start-up, the catalog, the matcher), which the share counts only
//   for 50/200 of the tree's run.
// ripgrep comes from apt (`apt-get install ripgrep`); without it the ratio is skipped.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './bench-startup.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    files: { type: 'string', default: '20000' },
    models: { type: 'string', default: '5000' },
  },
});
const RUNS = Number(values.runs);
const FILES = Number(values.files);
const MODELS = Number(values.models);
const FILE_BYTES = 10 * 1024;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/model-feed-mcp.cjs');
const rssHook = join(root, 'scripts/bench-rss-hook.cjs');

/** A deterministic generator: the same tree in every run. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const VENDORS = Array.from({ length: 100 }, (_, i) => `vendor-${i}`);
const WORDS = [
  'alpha',
  'nova',
  'flash',
  'mini',
  'pro',
  'turbo',
  'lite',
  'max',
  'coder',
  'vision',
  'chat',
  'instruct',
];
function catalog(random) {
  return Array.from({ length: MODELS }, (_, i) => {
    const vendor = VENDORS[i % VENDORS.length];
    const word = WORDS[Math.floor(random() * WORDS.length)];
    const name = `${word}-${Math.floor(i / VENDORS.length)}.${i % 7}`;
    return {
      id: `${vendor}/${name}`,
      name: `${word[0].toUpperCase()}${word.slice(1)} ${Math.floor(i / VENDORS.length)}.${i % 7} ${vendor}`,
      displayName: `${vendor}: ${word} ${i}`,
      vendor,
      type: i % 4 === 0 ? 'open_source' : 'commercial',
      pricing: { inputPerMillion: 0.1 + (i % 50) / 10, outputPerMillion: 1 + (i % 30) / 5 },
      contextLength: 8192 * (1 + (i % 16)),
      listedAt: 1_700_000_000 + i * 3600,
      huggingfaceId: i % 3 === 0 ? `${vendor}-org/${name}-Instruct` : null,
      attention: {
        rank: i + 1,
        score: Math.round((1 - i / MODELS) * 1e4) / 100,
        newsCount: i % 13,
        opinions: i % 29,
      },
      url: `https://models.example/${vendor}/${name}`,
    };
  });
}

const LINES = [
  'const result = await client.request({ timeout: 30_000, retries: 3 });',
  'def handle(event, context):  # process the incoming event and return a response',
  '  - name: build\n    run: npm ci && npm test',
  'export function parse(input: string): Token[] { return lex(input).filter(Boolean); }',
  '<div class="card"><span>{{ item.title }}</span></div>',
  "    if (buffer.length > limit) throw new RangeError('too large: ' + buffer.length);",
];

function makeTree(folder, models, random) {
  let written = 0;
  for (let f = 0; f < FILES; f++) {
    const dir = join(folder, `pkg-${f % 100}`, `mod-${Math.floor(f / 100) % 20}`);
    if (f < 2000) mkdirSync(dir, { recursive: true });
    const parts = [];
    let size = 0;
    while (size < FILE_BYTES) {
      let line = LINES[Math.floor(random() * LINES.length)];
      if (random() < 0.01) {
        const model = models[Math.floor(random() * models.length)];
        line = `model = "${random() < 0.5 ? model.id : model.id.split('/')[1]}"`;
      }
      parts.push(line);
      size += line.length + 1;
    }
    const text = `${parts.join('\n')}\n`;
    writeFileSync(join(dir, `file-${f}.${['ts', 'py', 'yaml', 'md'][f % 4]}`), text);
    written += text.length;
  }
  return written;
}

/** Serves the catalog; no changes, no price history. */
function stubService(models) {
  const body = JSON.stringify({ items: models, total: models.length });
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/api/v1/models') return res.end(body);
    if (url.pathname === '/api/v1/changes') return res.end('{"items":[],"nextCursor":null,"latest":null}');
    const history = /^\/api\/v1\/models\/([^/]+)\/history$/.exec(url.pathname);
    if (history) return res.end(JSON.stringify({ id: history[1], points: [] }));
    res.statusCode = 404;
    res.end('{}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function timed(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const rss = /bench-maxrss (\d+)/.exec(stderr);
      const cpu = /bench-cpu (\d+)/.exec(stderr);
      resolve({
        ms,
        code,
        rssMb: rss ? Number(rss[1]) / 1024 : undefined,
        cpuMs: cpu && Number(cpu[1]) / 1000,
        stderr,
      });
    });
  });
}

const hasRipgrep = (() => {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
console.log(`load average (1, 5, 15 min) at start: ${load()}`);
const work = mkdtempSync(join(tmpdir(), 'mf-bench-check-'));
const server = await stubService(catalog(prng(7)));
try {
  const models = catalog(prng(7));
  const tree = join(work, 'tree');
  const started = Date.now();
  const bytes = makeTree(tree, models, prng(11));
  console.log(`## check on a big tree\n`);
  console.log(
    `tree: ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB (made in ${Date.now() - started} ms); catalog: ${MODELS} models`,
  );
  const patterns = join(work, 'patterns.txt');
  writeFileSync(
    patterns,
    `${[...new Set(models.flatMap((m) => [m.id, m.id.split('/')[1], m.name, m.huggingfaceId].filter(Boolean)))].join('\n')}\n`,
  );
  const env = {
    PATH: process.env.PATH ?? '',
    MODEL_FEED_API_KEY: 'mfsk_bench_check_0123456789',
    MODEL_FEED_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  };
  const check = (paths, extra = []) =>
    timed(
      process.execPath,
      [
        '-r',
        rssHook,
        bin,
        'check',
        '--format',
        'json',
        '--cache-ttl',
        '0',
        '--fail-on',
        'none',
        ...extra,
        ...paths,
      ],
      { env, cwd: work },
    );
  const rg = () => timed('rg', ['-F', '-i', '-c', '-f', patterns, tree], { env });

  const times = { check: [], rg: [], rss: [], cores: [] };
  // A warm-up: the tree in the page cache for both.
  await check([tree]);
  for (let i = 0; i < RUNS; i++) {
    const [first, second] = i % 2 ? [rg, () => check([tree])] : [() => check([tree]), rg];
    for (const step of hasRipgrep ? [first, second] : [() => check([tree])]) {
      const result = await step();
      if (result.rssMb !== undefined) {
        if (result.code !== 0) throw new Error(`check exited ${result.code}: ${result.stderr}`);
        times.check.push(result.ms);
        times.rss.push(result.rssMb);
        times.cores.push(result.cpuMs / result.ms);
      } else times.rg.push(result.ms);
    }
  }
  const checkMs = median(times.check);
  console.log(`\n| figure | median of ${RUNS} | target |\n|---|---|---|`);
  console.log(`| check, wall time | ${checkMs.toFixed(0)} ms | |`);
  if (hasRipgrep) {
    const rgMs = median(times.rg);
    console.log(`| rg -F -i -c -f <${MODELS} models' ids and names>, wall time | ${rgMs.toFixed(0)} ms | |`);
    console.log(`| check / rg | **${(checkMs / rgMs).toFixed(2)} x** | ≤ 1.0 x |`);
  } else {
    console.log('| check / rg | skipped: ripgrep not installed (apt-get install ripgrep) | ≤ 1.0 x |');
  }
  console.log(`| check, peak RSS | ${Math.max(...times.rss).toFixed(1)} MB (max) | ≤ 150 MB |`);
  console.log(`| check, CPU time / wall time | ${median(times.cores).toFixed(2)} | both cores |`);

  // What a run costs before it reads a file: start-up, the catalog, the matcher.
  const empty = join(work, 'empty');
  mkdirSync(empty);
  const emptyTimes = [];
  for (let i = 0; i < RUNS; i++) emptyTimes.push((await check([empty])).ms);
  const emptyMs = median(emptyTimes);
  console.log(`| check of an empty folder, wall time | ${emptyMs.toFixed(0)} ms | |`);

  // One 50 MB minified line.
  const line = join(work, 'minified.js');
  const chunk = 'var a={model:"vendor-3/mini-0.3",b:[1,2,3],c:"lorem-ipsum-dolor-sit"};';
  writeFileSync(line, chunk.repeat(Math.ceil(50e6 / chunk.length)));
  const lineTimes = [];
  let lineRss = 0;
  for (let i = 0; i < RUNS; i++) {
    const result = await check([line], ['--max-file-size', '64']);
    if (result.code !== 0) throw new Error(`check exited ${result.code}: ${result.stderr}`);
    lineTimes.push(result.ms);
    lineRss = Math.max(lineRss, result.rssMb ?? 0);
  }
  const lineMs = median(lineTimes);
  const share = (checkMs * 50e6) / bytes;
  console.log(
    `| one 50 MB line (--max-file-size 64), wall time | ${lineMs.toFixed(0)} ms: **${(lineMs / share).toFixed(2)} x** its share (${share.toFixed(0)} ms) | ≤ 1.0 x |`,
  );
  const netShare = ((checkMs - emptyMs) * 50e6) / bytes;
  console.log(
    `| the same, net of the empty folder's run | ${(lineMs - emptyMs).toFixed(0)} ms: ${((lineMs - emptyMs) / netShare).toFixed(2)} x its share (${netShare.toFixed(0)} ms) | |`,
  );
  console.log(`| one 50 MB line, peak RSS | ${lineRss.toFixed(1)} MB | ≤ 150 MB |`);

  // Ten 4 MiB files of nothing but near misses: every id is a listed one's vendor with a name
  // close to its models', none listed, no colon anywhere. Each costs a suggestion search.
  const nearMisses = join(work, 'near-misses');
  mkdirSync(nearMisses);
  for (let f = 0; f < 10; f++) {
    const lines = [];
    for (let i = 0, size = 0; size < 4 * 1024 * 1024 - 100; i++) {
      const text = `m = "${VENDORS[i % VENDORS.length]}/mini-${f}x${i}"`;
      lines.push(text);
      size += text.length + 1;
    }
    writeFileSync(join(nearMisses, `f${f}.py`), `${lines.join('\n')}\n`);
  }
  const nearTimes = [];
  let nearRss = 0;
  for (let i = 0; i < RUNS; i++) {
    const result = await check([nearMisses], ['--format', 'sarif']);
    if (result.code !== 0) throw new Error(`check exited ${result.code}: ${result.stderr}`);
    nearTimes.push(result.ms);
    nearRss = Math.max(nearRss, result.rssMb ?? 0);
  }
  console.log(
    `| ten 4 MiB files of near misses only (--format sarif): wall / peak RSS | ${median(nearTimes).toFixed(0)} ms / ${nearRss.toFixed(1)} MB | |`,
  );
  console.log(`\nload average at end: ${load()}`);
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}
