// How right `check` is on real code: `npm run measure:check`.
//
//   node scripts/measure-check/index.mjs [--json] [--cli <bin>] [--snapshot <file>] [--keep <dir>]
//
// - Brings the pinned npm packages the labels name (test/check/labels/packages.json) with
//   `npm pack` into a temp folder, unpacked there and removed at the end: the repository keeps
//   the labels, never the packages' code. Needs the npm registry.
// - Serves one real snapshot of the aggregator's catalog (../shared/data/origins/openrouter/, beside
//   the checkout; the newest unless --snapshot) on loopback, and runs the built
//   `check --format json --source public` on each package against it, the other origins off, in a
//   home of its own.
// - Joins the reported references with the labels (test/check/labels/labels.jsonl) by package,
//   file, line and token, and prints precision, recall over the references the catalog makes
//   findable, the share of failing findings that are right, the reported occurrences no label
//   covers (to complete the labels) and the misses. `--json` prints all of it as one document.
// Not part of `npm test`: it needs the network.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findableIn } from './findable.mjs';
import { reportedOccurrences, score } from './score.mjs';

const HELP = `Usage: node scripts/measure-check/index.mjs [options]

Measures check against the labelled set in test/check/labels/ (npm run measure:check).

Options:
  --json             print one JSON document instead of text
  --cli <bin>        the model-feed-mcp bin to measure (default: this checkout's bin/model-feed-mcp.cjs)
  --snapshot <file>  the catalog snapshot to serve (default: the newest in ../shared/data/origins/openrouter/)
  --keep <dir>       unpack the packages into this folder and keep them (to read lines while labelling)
  -h, --help         show this help`;

const root = fileURLToPath(new URL('../..', import.meta.url));
const labelsFolder = join(root, 'test/check/labels');
const snapshotsFolder = join(root, '..', 'shared', 'data', 'origins', 'openrouter');
const CHECK_TIMEOUT_MS = 120_000;
/** The labels are a sample: most reported occurrences have none, and text lists only the first. */
const UNLABELLED_LISTED = 40;

function fail(message) {
  console.error(message);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      cli: { type: 'string' },
      snapshot: { type: 'string' },
      keep: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail(`${error.message}\n\n${HELP}`);
}
if (options.help) {
  console.log(HELP);
  process.exit(0);
}

const cli = resolve(options.cli ?? join(root, 'bin/model-feed-mcp.cjs'));
const cliRoot = join(cli, '..', '..');
const cliDist = join(cliRoot, 'dist', 'index.cjs');
if (!existsSync(cli) || !existsSync(cliDist)) {
  fail(`No built CLI at ${cli} (dist/index.cjs missing): run npm run build there.`);
}

/** The newest modification time of the files under `folder`, in ms (0 when there are none). */
function newestUnder(folder) {
  if (!existsSync(folder)) return 0;
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function snapshotFile() {
  if (options.snapshot) return resolve(options.snapshot);
  const names = existsSync(snapshotsFolder)
    ? readdirSync(snapshotsFolder)
        .filter((name) => /^\d+-.*\.json$/.test(name))
        .sort()
    : [];
  if (names.length === 0) {
    fail(
      `The real catalog snapshots are absent: ${snapshotsFolder} holds none (they live beside the checkout, in ../shared/data/origins/openrouter/). Pass --snapshot <file> to use another.`,
    );
  }
  return join(snapshotsFolder, names.at(-1));
}
const snapshot = snapshotFile();
if (!existsSync(snapshot)) fail(`No catalog snapshot at ${snapshot}.`);
const snapshotBody = readFileSync(snapshot);
const catalogModels = JSON.parse(snapshotBody).data;

const packages = JSON.parse(readFileSync(join(labelsFolder, 'packages.json'), 'utf8'));
const labels = readFileSync(join(labelsFolder, 'labels.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));

/** The aggregator's catalog on loopback: `GET /api/v1/models` answers the snapshot. */
async function startCatalog() {
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] !== '/api/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': snapshotBody.length })
      .end(snapshotBody);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/v1`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  };
}

/** `npm pack name@version`, unpacked into `folder/<name>`; returns that folder. */
function unpack(pkg, folder) {
  const into = join(folder, pkg.name.replace('/', '+'));
  if (existsSync(into)) return into;
  mkdirSync(into, { recursive: true });
  const packed = execFileSync(
    'npm',
    ['pack', `${pkg.name}@${pkg.version}`, '--json', '--pack-destination', folder],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const tarball = join(folder, JSON.parse(packed)[0].filename);
  execFileSync('tar', ['xzf', tarball, '-C', into, '--strip-components=1']);
  rmSync(tarball);
  return into;
}

/** One `check --format json` of a package's folder; the document it printed. */
function runCheck(folder, env) {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [cli, 'check', '--format', 'json', '--source', 'public', '.'], {
      cwd: folder,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    let err = '';
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHECK_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== 1) {
        reject(new Error(`check exited ${code} in ${folder}: ${err.slice(0, 2000)}`));
        return;
      }
      done(JSON.parse(Buffer.concat(out).toString('utf8')));
    });
  });
}

const percent = (ratio) => (ratio.value === null ? 'n/a' : `${(ratio.value * 100).toFixed(1)} %`);
const place = (o) => `${o.package} ${o.file}:${o.line}  ${o.token}`;

const scratch = mkdtempSync(join(tmpdir(), 'mf-measure-check-'));
const unpacked = options.keep ? resolve(options.keep) : join(scratch, 'packages');
mkdirSync(unpacked, { recursive: true });
const catalog = await startCatalog();
try {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    XDG_CACHE_HOME: join(scratch, 'cache'),
    XDG_STATE_HOME: join(scratch, 'state'),
    XDG_CONFIG_HOME: join(scratch, 'config'),
    MODEL_FEED_OPENROUTER_URL: catalog.url,
    MODEL_FEED_MODELS_DEV_URL: 'off',
    MODEL_FEED_HUGGINGFACE_URL: 'off',
    MODEL_FEED_DEPRECATIONS_URL: 'off',
  };
  const reported = [];
  for (const pkg of packages) {
    const folder = unpack(pkg, unpacked);
    reported.push(...reportedOccurrences(pkg.name, await runCheck(folder, env)));
  }
  const result = score(labels, reported, (label) => findableIn(catalogModels)(label.token));
  const distBuilt = statSync(cliDist).mtime.toISOString();
  // A build older than its sources measures code that is no longer there.
  const sourcesChanged = newestUnder(join(cliRoot, 'src'));
  const stale = sourcesChanged > statSync(cliDist).mtimeMs;
  const measured = {
    cli,
    distBuilt,
    distOlderThanSources: stale,
    snapshot: snapshot.replace(`${join(root, '..')}/`, '../'),
    catalogModels: catalogModels.length,
    packages,
    ...result,
  };
  if (options.json) {
    console.log(JSON.stringify(measured, null, 2));
  } else {
    console.log(`check: ${cli} (dist built ${distBuilt})`);
    if (stale) {
      console.log(
        `warning: ${join(cliRoot, 'src')} changed after that build (${new Date(sourcesChanged).toISOString()}): these figures are for the build, not for the sources`,
      );
    }
    console.log(`catalog: ${measured.snapshot}, ${catalogModels.length} models`);
    console.log(`packages: ${packages.map((p) => `${p.name}@${p.version}`).join(', ')}`);
    console.log(
      `labels: ${result.labels.total} (${result.labels.references} references, ${result.labels.not} not; ${result.labels.findableReferences} references findable in this catalog)\n`,
    );
    console.log(`| figure | value | counts | goal |\n|---|---|---|---|`);
    const row = (name, ratio, goal) =>
      console.log(`| ${name} | ${percent(ratio)} | ${ratio.hits} / ${ratio.of} | ${goal} |`);
    row('precision (reported that are references)', result.precision, '>= 98 %');
    row('recall (findable references reported)', result.recall, '>= 95 %');
    row('failing findings right', result.failingRight, '>= 98 %');
    console.log(
      `\nreported occurrences: ${result.reported}, of which unlabelled: ${result.unlabelled.length}`,
    );
    const list = (title, items, describe, limit = Number.POSITIVE_INFINITY) => {
      if (items.length === 0) return;
      console.log(`\n${title} (${items.length}):`);
      for (const item of items.slice(0, limit)) console.log(`  ${describe(item)}`);
      if (items.length > limit) console.log(`  … ${items.length - limit} more (--json lists them all)`);
    };
    /** How many of `items` share each value of `by`, most first: the kinds of error before the cases. */
    const tally = (title, items, by) => {
      if (items.length === 0) return;
      const counts = new Map();
      for (const item of items) counts.set(by(item), (counts.get(by(item)) ?? 0) + 1);
      console.log(`\n${title}:`);
      for (const [value, count] of [...counts].sort((a, b) => b[1] - a[1]))
        console.log(`  ${count}  ${value}`);
    };
    tally('reported, not a reference, by reason', result.falsePositives, (o) => o.reason ?? '(no reason)');
    tally('failing and wrong, by reason', result.wrongFailing, (o) => o.reason ?? '(no reason)');
    tally('missed, by token', result.misses, (o) => o.token);
    list(
      'reported, not a reference',
      result.falsePositives,
      (o) => `${place(o)}  [${o.kinds.join(',')}] ${o.reason ?? ''}`,
    );
    list(
      'failing and wrong',
      result.wrongFailing,
      (o) => `${place(o)}  [${o.kinds.join(',')}] ${o.reason ?? ''}`,
    );
    list('missed (findable references not reported)', result.misses, (o) => place(o));
    list(
      'reported, unlabelled (label them)',
      result.unlabelled,
      (o) => `${place(o)}  → ${o.model ?? 'near miss'} [${o.kinds.join(',')}]`,
      UNLABELLED_LISTED,
    );
  }
} finally {
  await catalog.close();
  rmSync(scratch, { recursive: true, force: true });
}
