// npm run bench, part four: `--source public`, the public origins recorded on this machine. Four
// figures, medians of one run, against a loopback stub of the aggregator's catalog serving real
// 420-model snapshots (read at run time from ../shared/data/origins/openrouter/; without that folder
// the figures are skipped, and the bench goes on):
// - what a refresh adds to a call: one stdio session fetching on every call (--refresh 0) against one
//   answering from its warm store, interleaved;
// - a call answered from a warm store against the same call to the service through its disk cache,
//   as a new process per call and inside one session;
// - peak RSS of a session of refreshing calls against the same session on the service;
// - how the store grows: with real changes (the snapshots in order) and with polls that change nothing.
// Every process gets the same clean environment: PATH, and a HOME and XDG folders of its own.
//
//   node scripts/bench-public.mjs [--runs N] [--node PATH]

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = `${root}bin/model-feed-mcp.cjs`;
const snapshotsFolder = join(root, '..', 'shared', 'data', 'origins', 'openrouter');
const { values: options } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, node: { type: 'string' } },
});
/** Calls per figure inside a session; whole processes take two thirds as many pairs. */
const RUNS = Math.max(1, Number(options.runs));
const PROCESS_PAIRS = Math.max(1, Math.round((RUNS * 2) / 3));
const RSS_CALLS = 30;
const UNCHANGED_POLLS = 200;
const HOURS_A_YEAR = 24 * 365;
/** The file store re-reads a head younger than this (its SETTLED_MS): a warm store is older. */
const HEAD_SETTLED_MS = 3000;
const CALL_TIMEOUT_MS = 60_000;
const node = options.node ?? process.execPath;
if (!existsSync(`${root}dist/index.cjs`)) throw new Error('dist/ is missing: run `npm run build` first');
const { startSandbox } = createRequire(import.meta.url)(`${root}dist/sandbox.cjs`);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const wait = (delay) => new Promise((resolve) => setTimeout(resolve, delay));
const table = (header, rows) => {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
};

console.log(`\n## public source (${node === process.execPath ? 'this Node' : node}, ${process.version})\n`);
const snapshotNames = existsSync(snapshotsFolder)
  ? readdirSync(snapshotsFolder)
      .filter((name) => /^\d+-.*\.json$/.test(name))
      .sort()
  : [];
if (snapshotNames.length < 2) {
  console.log(
    `Skipped: these figures need the real catalog snapshots of ${snapshotsFolder} (two at least), not found.`,
  );
  process.exit(0);
}
const snapshots = snapshotNames.map((name) => ({ name, body: readFileSync(join(snapshotsFolder, name)) }));
const newest = snapshots.at(-1);
const previous = snapshots.at(-2);
const modelCount = JSON.parse(newest.body).data.length;

// ---------------------------------------------------------------- the stub origin
/**
 * The aggregator's catalog on loopback, one channel per path prefix (`/{channel}/api/v1/models`),
 * each answering what its function gives at that request: alternating snapshots, always the newest,
 * or the one a replay has set.
 */
async function startStubOrigin(channels) {
  let requests = 0;
  const server = createServer((req, res) => {
    const [, channel, ...rest] = (req.url ?? '').split('?')[0].split('/');
    const next = channels[channel];
    if (next === undefined || rest.join('/') !== 'api/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    requests++;
    const body = next();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    urlOf: (channel) => `http://127.0.0.1:${port}/${channel}/api/v1`,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

let alternation = 0;
let replayed = newest;
const origin = await startStubOrigin({
  // Each refresh sees a change: the two newest snapshots in turn.
  alternate: () => (alternation++ % 2 ? newest : previous).body,
  steady: () => newest.body,
  replay: () => replayed.body,
});
const sandbox = await startSandbox({ tier: 'pro' });
const scratch = mkdtempSync(join(tmpdir(), 'mf-bench-public-'));

// ---------------------------------------------------------------- processes and sessions
/** A home of its own: HOME and the XDG folders, so no process sees the user's cache or store. */
function home(name) {
  const folder = join(scratch, name);
  mkdirSync(folder, { recursive: true });
  return folder;
}
const cleanEnv = (folder, extra) => ({
  PATH: process.env.PATH ?? '',
  HOME: folder,
  XDG_CACHE_HOME: join(folder, 'cache'),
  XDG_STATE_HOME: join(folder, 'state'),
  XDG_CONFIG_HOME: join(folder, 'config'),
  ...extra,
});
/** The catalog alone: the other origins off, so every figure is the catalog's. */
const publicEnv = (folder, channel) =>
  cleanEnv(folder, {
    MODEL_FEED_OPENROUTER_URL: origin.urlOf(channel),
    MODEL_FEED_MODELS_DEV_URL: 'off',
    MODEL_FEED_HUGGINGFACE_URL: 'off',
    MODEL_FEED_DEPRECATIONS_URL: 'off',
  });
const serviceEnv = (folder) =>
  cleanEnv(folder, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key });
const storeOf = (folder) => join(folder, 'state', 'model-feed-mcp', 'public');

/** Sessions not closed yet: a failed figure must not leave a server behind. */
const openSessions = new Set();

/** A stdio session through the SDK's client, as an MCP client runs the server. */
async function openSession(args, env) {
  const transport = new StdioClientTransport({ command: node, args: [bin, ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'bench-public', version: '1' });
  await client.connect(transport);
  const session = {
    pid: transport.pid,
    /** One tools/call, timed; an error answer stops the bench. */
    async call(name, args) {
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS });
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`${name}: ${result.content[0]?.text} ${stderr}`);
      return elapsed;
    },
    close: () => {
      openSessions.delete(session);
      return client.close();
    },
  };
  openSessions.add(session);
  return session;
}

/** One `model-feed-mcp call …` as a user's shell runs it: spawn to exit. */
function callProcess(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, [bin, 'call', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CALL_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`call ${args.join(' ')} exited ${code}: ${out}`));
      else resolve(performance.now() - started);
    });
  });
}

function peakRssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

function folderBytes(folder) {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

/** Calls each of `sessions` in turn, first in turn too, RUNS + 1 times; the first round is not counted. */
async function interleaved(sessions, name, args) {
  const times = sessions.map(() => []);
  for (let i = 0; i <= RUNS; i++) {
    for (let k = 0; k < sessions.length; k++) {
      const index = (i + k) % sessions.length;
      const elapsed = await sessions[index].call(name, args);
      if (i > 0) times[index].push(elapsed);
    }
  }
  return times.map(median);
}

/** Ten models on both sides: the sandbox lists ten of openai's, the real catalog more. */
const SEARCH = { vendor: 'openai', limit: 10 };
const CHANGES = { since: 0, limit: 20 };

// ---------------------------------------------------------------- 1. what a refresh costs
async function refreshCost() {
  const warmHome = home('refresh-warm');
  // The warm store is made first, and older than the store's settling time when measured.
  await callProcess(['search_models', '--source', 'public', '--limit', '1'], publicEnv(warmHome, 'steady'));
  const sessions = [
    await openSession(
      ['--source', 'public', '--refresh', '0'],
      publicEnv(home('refresh-changed'), 'alternate'),
    ),
    await openSession(['--source', 'public', '--refresh', '0'], publicEnv(home('refresh-same'), 'steady')),
    await openSession(['--source', 'public'], publicEnv(warmHome, 'steady')),
  ];
  await wait(HEAD_SETTLED_MS);
  const rows = [];
  for (const [name, args] of [
    ['search_models', SEARCH],
    ['list_model_changes', CHANGES],
  ]) {
    const [changed, same, warm] = await interleaved(sessions, name, args);
    rows.push([name, ms(changed), ms(same), ms(warm), `**${ms(changed - warm)}**`, ms(same - warm)]);
  }
  for (const session of sessions) await session.close();
  return rows;
}

// ---------------------------------------------------------------- 2. warm store against the disk cache
async function warmStoreAgainstService() {
  const publicHome = home('warm-public');
  const serviceHome = home('warm-service');
  const search = ['search_models', '--vendor', 'openai', '--limit', '10'];
  const publicArgs = [...search, '--source', 'public'];
  // The store, and the disk cache, filled once by a call of their own.
  await callProcess(publicArgs, publicEnv(publicHome, 'steady'));
  await callProcess(search, serviceEnv(serviceHome));
  await wait(HEAD_SETTLED_MS);
  const ratios = [];
  const publicTimes = [];
  const serviceTimes = [];
  for (let i = 0; i < PROCESS_PAIRS; i++) {
    // In turn first, so that neither always follows the other.
    const order = i % 2 ? ['service', 'public'] : ['public', 'service'];
    const pair = {};
    for (const kind of order) {
      pair[kind] =
        kind === 'public'
          ? await callProcess(publicArgs, publicEnv(publicHome, 'steady'))
          : await callProcess(search, serviceEnv(serviceHome));
    }
    publicTimes.push(pair.public);
    serviceTimes.push(pair.service);
    ratios.push(pair.public / pair.service);
  }
  const sessions = [
    await openSession(['--source', 'public'], publicEnv(publicHome, 'steady')),
    await openSession([], serviceEnv(serviceHome)),
  ];
  const [publicCall, serviceCall] = await interleaved(sessions, 'search_models', SEARCH);
  for (const session of sessions) await session.close();
  return {
    process: { public: median(publicTimes), service: median(serviceTimes), ratio: median(ratios) },
    session: { public: publicCall, service: serviceCall },
  };
}

// ---------------------------------------------------------------- 3. peak RSS
async function peakRss(args, env) {
  const session = await openSession(args, env);
  for (let i = 0; i < RSS_CALLS; i++) await session.call('search_models', SEARCH);
  const bytes = peakRssBytes(session.pid);
  await session.close();
  return bytes;
}

// ---------------------------------------------------------------- 4. how the store grows
async function storeGrowth() {
  const growthHome = home('growth');
  const store = storeOf(growthHome);
  const session = await openSession(
    ['--source', 'public', '--refresh', '0'],
    publicEnv(growthHome, 'replay'),
  );
  // The real snapshots in order: the first makes the store, the others add what changed.
  replayed = snapshots[0];
  await session.call('list_model_changes', CHANGES);
  const first = folderBytes(store);
  for (const snapshot of snapshots.slice(1)) {
    replayed = snapshot;
    await session.call('list_model_changes', CHANGES);
  }
  const replayedBytes = folderBytes(store);
  for (let i = 0; i < UNCHANGED_POLLS; i++) await session.call('list_model_changes', CHANGES);
  const after = folderBytes(store);
  await session.close();
  const timeOf = (name) => {
    const [, date, hours, minutes] = /-(\d{4}-\d\d-\d\d)T(\d\d)(\d\d)Z/.exec(name);
    return Date.parse(`${date}T${hours}:${minutes}:00Z`);
  };
  const days = (timeOf(snapshots.at(-1).name) - timeOf(snapshots[0].name)) / 86_400_000;
  const perPoll = (after - replayedBytes) / UNCHANGED_POLLS;
  const changesPerDay = (replayedBytes - first) / days;
  return { first, replayedBytes, after, perPoll, changesPerDay, days };
}

// ---------------------------------------------------------------- run
const started = performance.now();
try {
  const refresh = await refreshCost();
  const warm = await warmStoreAgainstService();
  const rssPublic = await peakRss(
    ['--source', 'public', '--refresh', '0'],
    publicEnv(home('rss-public'), 'alternate'),
  );
  const rssService = await peakRss([], serviceEnv(home('rss-service')));
  const growth = await storeGrowth();

  console.log(
    `The catalog: ${newest.name} (${modelCount} models), and ${previous.name} in turn where each refresh must see a change; the other origins off. ${RUNS} calls per session figure (the first not counted), interleaved.\n`,
  );
  console.log(`### What a refresh adds to a call (one stdio session each)\n`);
  table(
    [
      'tool',
      '--refresh 0, changed',
      '--refresh 0, unchanged',
      'warm store',
      'added by a refresh that changes',
      'by one that does not',
    ],
    refresh,
  );
  console.log('\nBound: a refresh adds at most 100 ms to a call.\n');
  console.log(
    `### A warm store against the service through the disk cache (\`search_models --vendor openai --limit 10\`)\n`,
  );
  const ratio = (a, b) => `${(a / b).toFixed(2)} x`;
  table(
    ['how', 'public, warm store', 'service, warm disk cache', 'public / service'],
    [
      [
        `\`call\`, a new process each (${PROCESS_PAIRS} pairs)`,
        ms(warm.process.public),
        ms(warm.process.service),
        `**${warm.process.ratio.toFixed(2)} x** (median of pairs)`,
      ],
      [
        'one stdio session, per call after the first',
        ms(warm.session.public),
        ms(warm.session.service),
        ratio(warm.session.public, warm.session.service),
      ],
    ],
  );
  console.log('\nBound: a call from a warm store costs no more than one through the disk cache (≤ 1.0 x).\n');
  console.log(`### Peak RSS of a stdio session, ${RSS_CALLS} calls of \`search_models\`\n`);
  table(
    ['session', 'peak RSS (VmHWM)'],
    [
      [`public, --refresh 0 (${RSS_CALLS} refreshes of ${modelCount} models)`, `**${mib(rssPublic)}**`],
      ['service (sandbox), default cache', mib(rssService)],
    ],
  );
  console.log('\nBound: within today’s limits (≤ 80 MB).\n');
  console.log('### How the store grows\n');
  const perYear = growth.replayedBytes + growth.perPoll * HOURS_A_YEAR + growth.changesPerDay * 365;
  table(
    ['figure', 'bytes'],
    [
      ['after the first snapshot', growth.first.toLocaleString('en')],
      [
        `after all ${snapshots.length} in order (${growth.days.toFixed(1)} days of real changes)`,
        growth.replayedBytes.toLocaleString('en'),
      ],
      [`added per poll that changed nothing (${UNCHANGED_POLLS} polls)`, `**${growth.perPoll.toFixed(0)}**`],
      [
        'added by changes, per day at that pace',
        growth.changesPerDay.toLocaleString('en', { maximumFractionDigits: 0 }),
      ],
      [
        'a year of hourly polls: polls + changes + what is there',
        `**${mib(perYear)}** (${mib(growth.perPoll * HOURS_A_YEAR)} + ${mib(growth.changesPerDay * 365)} + ${mib(growth.replayedBytes)})`,
      ],
    ],
  );
  console.log(
    `\nBound: a poll that changed nothing adds at most a few hundred bytes; a year of hourly polls stays well under 50 MB. ${origin.requests()} requests to the stub; ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
} finally {
  for (const session of openSessions) await session.close().catch(() => {});
  await origin.close();
  await sandbox.close();
  rmSync(scratch, { recursive: true, force: true });
}
