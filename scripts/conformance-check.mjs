// The official MCP conformance suite (server mode) against the built CLI's two HTTP endpoints:
// `--http` and the sandbox's `/api/mcp`, in both protocol eras: the 2025 scenarios with the suite's
// 0.1 line, the 2026-07-28 ones with its 0.2 line (`--spec-version 2026-07-28`). Every scenario
// must pass on both endpoints; exit 1 otherwise.
// Usage: node >= 22 scripts/conformance-check.mjs <0.1 dist/index.js> <0.2 dist/index.js> [scenario …]
//
// Some 2026 checks need the reference server's diagnostic tools, which a real server has no reason
// to carry; the suite reports them as FAILURE with `details.untestable: true`. Those named in
// NOT_TESTABLE are reported as not testable here; any other failure, untestable or not, fails.
//
// The suite sends no Authorization header, so a loopback forwarder adds it and passes everything
// else through unchanged, Host and Origin included: dns-rebinding-protection must test the server,
// not the forwarder. The suite's "valid" request carries the forwarder's own host:port as Host,
// and the servers check the port too; so each server is bound to 127.0.0.2 and its forwarder to
// 127.0.0.1 on the same port number (all of 127.0.0.0/8 is loopback on Linux, where CI runs).

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

/** Run with the 0.1 suite, at its default revision (2025-11-25). */
const LEGACY_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'completion-complete',
  'dns-rebinding-protection',
];
const MODERN_REVISION = '2026-07-28';
/** Run with the 0.2 suite at MODERN_REVISION. */
const MODERN_SCENARIOS = [
  'server-stateless',
  'tools-list',
  'resources-list',
  'prompts-list',
  'completion-complete',
  'sep-2164-resource-not-found',
  'caching',
  'http-header-validation',
  'dns-rebinding-protection',
];
/**
 * Checks that need the reference server's own diagnostic tools (test_missing_capability,
 * test_streaming_elicitation, test_logging_tool): not testable on this server, which does not add
 * them (scenario → check names, as the suite's reports name them). This server sends no
 * notifications/message at all, and declares no capability a tool call could need from a client.
 */
const NOT_TESTABLE = {
  'server-stateless': [
    'ServerRejectsUndeclaredCapability',
    'MissingCapabilityHttp400',
    'HttpServerNoIndependentRequestsOnStream',
    'ServerNoLogWithoutLogLevel',
  ],
};
/**
 * Where this server answers on purpose otherwise than the suite expects (scenario → check name →
 * the one error message that is excused). The -32022 answer lists every revision served, the 2025
 * ones spoken after `initialize` included, as the 2026-07-28 schema's own example does, so a
 * refused client learns it can fall back; `server/discover` lists only the enveloped one, as the
 * SDK answers it, and the suite wants the first list inside the second. Any other message fails.
 */
const DIVERGENCES = {
  'server-stateless': {
    ServerUnsupportedVersionError:
      'Returned supported versions data layout does not correlate to active server metrics: ["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05","2024-10-07"]',
  },
};
const SERVER_HOST = '127.0.0.2';
const FORWARDER_HOST = '127.0.0.1';
const KEY = 'mfsk_conformance_check_key';
const START_TIMEOUT_MS = 10_000;
const SCENARIO_TIMEOUT_MS = 60_000;

const [legacySuite, modernSuite, ...chosen] = process.argv.slice(2);
if (!legacySuite || !modernSuite) {
  console.error(
    'usage: node scripts/conformance-check.mjs <conformance 0.1 dist/index.js> <conformance 0.2 dist/index.js> [scenario …]',
  );
  process.exit(2);
}
const pick = (list) => (chosen.length ? list.filter((scenario) => chosen.includes(scenario)) : list);
/** Each run: which suite, which revision (none: the suite's default), which scenario. */
const runs = [
  ...pick(LEGACY_SCENARIOS).map((scenario) => ({ suite: legacySuite, revision: undefined, scenario })),
  ...pick(MODERN_SCENARIOS).map((scenario) => ({ suite: modernSuite, revision: MODERN_REVISION, scenario })),
];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/model-feed-mcp.cjs');
const children = [];

/** The built CLI with `args`, once `ready` matches its output (bounded); resolves with that match. */
function startCli(args, env, stream, ready) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')} did not start: ${errors}`)),
      START_TIMEOUT_MS,
    );
    child[stream].on('data', (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${errors}`)));
  });
}

/** Listens on FORWARDER_HOST:`port` and sends every request to SERVER_HOST:`port` with the key added. */
function startForwarder(port) {
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: SERVER_HOST,
        port,
        method: req.method,
        path: req.url,
        // Host and Origin exactly as the suite sent them.
        headers: { ...req.headers, authorization: `Bearer ${KEY}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`forwarder: ${error.message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new Error(`forwarder: cannot listen on ${FORWARDER_HOST}:${port} (${error.code ?? error.message})`),
      ),
    );
    server.listen(port, FORWARDER_HOST, () => resolve(server));
  });
}

/** One check as a line. */
const describeCheck = (check) =>
  `${check.name}: ${check.errorMessage ?? ''} ${JSON.stringify(check.details ?? {})}`;

/**
 * The failed checks of one scenario's run, from the suite's checks.json: those that count, and
 * those NOT_TESTABLE excuses. Without that file, the suite's own output counts as one failure.
 */
function failures(outputDir, scenario, output) {
  try {
    const reports = readdirSync(outputDir).filter((name) => name.startsWith(`server-${scenario}-`));
    const checks = JSON.parse(readFileSync(join(outputDir, reports.sort().at(-1), 'checks.json'), 'utf8'));
    const failed = checks.filter((check) => check.status === 'FAILURE');
    const excused = (check) =>
      check.details?.untestable === true && (NOT_TESTABLE[scenario] ?? []).includes(check.name);
    const divergent = (check) => DIVERGENCES[scenario]?.[check.name] === check.errorMessage;
    return {
      counted: failed.filter((check) => !excused(check) && !divergent(check)).map(describeCheck),
      untestable: failed.filter(excused).map((check) => check.name),
      divergent: failed.filter(divergent).map((check) => check.name),
    };
  } catch {
    return { counted: [stripVTControlCharacters(output)], untestable: [], divergent: [] };
  }
}

/** One scenario against one URL; resolves with its exit code and output. */
function runScenario(url, { suite, revision, scenario }, outputDir) {
  return new Promise((resolve) => {
    const args = [suite, 'server', '--url', url, '--scenario', scenario, '-o', outputDir];
    if (revision) args.push('--spec-version', revision);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const results = mkdtempSync(join(tmpdir(), 'conformance-'));
let failed = 0;
try {
  const [, sandboxUrl] = await startCli(
    ['sandbox', '--host', SERVER_HOST, '--port', '0'],
    { MODEL_FEED_API_KEY: KEY },
    'stdout',
    /base URL\s+(\S+)/,
  );
  const [, httpUrl] = await startCli(
    ['--http', `${SERVER_HOST}:0`],
    { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: sandboxUrl },
    'stderr',
    /MCP over HTTP at (\S+)/,
  );
  const targets = [
    ['--http', new URL(httpUrl)],
    ['sandbox /api/mcp', new URL(`${sandboxUrl}/api/mcp`)],
  ];
  const forwarders = await Promise.all(targets.map(([, url]) => startForwarder(Number(url.port))));
  try {
    // The two endpoints side by side; the scenarios of one endpoint in turn.
    await Promise.all(
      targets.map(async ([name, url]) => {
        const forwarded = `http://${FORWARDER_HOST}:${url.port}${url.pathname}`;
        for (const run of runs) {
          const label = `${name}: ${run.scenario} (${run.revision ?? '2025-11-25'})`;
          const outputDir = join(results, `${name}-${run.revision ?? 'legacy'}`.replace(/\W+/g, '-'));
          const { code, output } = await runScenario(forwarded, run, outputDir);
          if (code === 0) {
            console.log(`ok    ${label}`);
            continue;
          }
          const { counted, untestable, divergent } = failures(outputDir, run.scenario, output);
          const note =
            (untestable.length ? `; not testable here: ${untestable.join(', ')}` : '') +
            (divergent.length ? `; answered otherwise on purpose: ${divergent.join(', ')}` : '');
          if (counted.length === 0) {
            console.log(`ok    ${label}${note}`);
            continue;
          }
          failed += 1;
          const why = counted.join('\n').replace(/^/gm, '      ');
          console.log(`FAIL  ${label} (exit ${code})${note}\n${why}`);
        }
      }),
    );
  } finally {
    for (const forwarder of forwarders) forwarder.close();
  }
} catch (error) {
  console.error(`conformance check could not run: ${error instanceof Error ? error.message : error}`);
  failed += 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(results, { recursive: true, force: true });
}
const total = runs.length * 2;
console.log(failed ? `conformance: ${failed} of ${total} failed` : `conformance: all ${total} passed`);
process.exitCode = failed ? 1 : 0;
