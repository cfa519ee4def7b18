'use strict';
/**
 * Loads the bundle with V8's code cache, so start-up skips most of parsing and compiling it. Node 20
 * has no compile cache of its own; Node >= 22.1 has one (module.enableCompileCache), but it keeps
 * only the functions compiled while loading, and measured slower here (2.8 x bare node against
 * 2.3 x). So on every version the bundle is compiled through vm.Script. It is kept beside the bundle
 * or, where that folder is read-only, in the temp folder, owned by this user only.
 *
 * When it is made: the cache holds the functions compiled so far, so it is worth most once the
 * session has answered its first `tools/list` or tool call. The server tells the loader of quiet
 * moments after such answers (`codeCache.quietMoment()`, src/code-cache-hook.ts); the first writes
 * the cache, so that a client that ends its servers with SIGKILL still leaves one. Later quiet
 * moments refresh it once if the session has compiled much more since (the tools' code, after a
 * first cache made at `tools/list`). At exit it is written if no quiet moment came.
 *
 * V8 accepts a cache made for another source of the same length and then runs the old code, so the
 * cache is keyed by the build's hash of the bundle (written next to it at build time) plus its size
 * and mtime, which catch an edit made after the build.
 */
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');

function cachePaths(file, key) {
  const name = `${path.basename(file)}.${key}.${process.version}.${process.arch}.v8cache`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return [path.join(path.dirname(file), name), path.join(os.tmpdir(), `model-feed-mcp-${uid}-${name}`)];
}

/** A cache file's bytes, if it exists and, in a shared folder, belongs to this user alone. */
function readCache(candidate, shared) {
  let fd;
  try {
    fd = fs.openSync(candidate, 'r');
    const stat = fs.fstatSync(fd);
    if (
      shared &&
      typeof process.getuid === 'function' &&
      (stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0)
    ) {
      return undefined;
    }
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Writes the cache to the first folder that takes it (temp file, then rename: a reader never sees
 * half a cache, even if this process is killed mid-write); returns where, or undefined. Never throws:
 * a cache is only a speed-up.
 */
function writeCache(candidates, data) {
  for (const target of candidates) {
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
      fs.renameSync(temporary, target);
      return target;
    } catch {
      try {
        fs.unlinkSync(temporary);
      } catch {}
    }
  }
}

/**
 * V8 flags that bound memory:
 * - The heap may grow by half what was live at the last full collection before collecting again,
 *   not 4x: after a few large catalog answers, 4x meant 310 MB peak RSS for 60 MB of live data
 *   (measured: 100 distinct 9 MB answers).
 * - The young generation stops growing: V8 lets it reach 2 x 16 MB when calls arrive faster than
 *   it collects, which alone puts a long session's RSS past 100 MB. Scavenges then come more often
 *   and take less each (docs/benchmarks.md).
 * When they are set: a start that has the code cache compiles next to nothing while loading, so
 * they are set before the bundle runs, and its young generation never grows (measured: Node 24's
 * peak RSS after 1,000 calls 82-84 → 76.5 MB, start-up unchanged). A first start compiles all of
 * it, which with them set took 13 ms longer: there they come in a setImmediate after loading, as
 * does node:v8 itself (1.6-2.3 ms to load).
 * V8 keys its code cache by its flags, and every start compiles with the defaults (the cache is
 * read before they are set): the defaults are restored while the cache is made.
 */
const MEMORY_FLAGS = ['--heap-growing-percent=50', '--semi-space-growth-factor=1'];
const DEFAULT_FLAGS = ['--heap-growing-percent=0', '--semi-space-growth-factor=2']; // V8's, Node 20 and 24

let v8;
/** node:v8, loaded on first use: it costs 1.6-2.3 ms, which start-up does not pay. */
function setFlags(flags) {
  v8 ??= require('node:v8');
  for (const flag of flags) v8.setFlagsFromString(flag);
}

/**
 * A refresh is written when the session's cache is this much larger than the one on disk: new code
 * compiled (measured: 478 KB after `tools/list`, 528 KB once each tool has run, +10 %).
 */
const REFRESH_GROWTH = 1.05;
/** Growth checks each cost one createCachedData (4-13 ms, measured): spaced out, and a few at most. */
const REFRESH_SPACING_MS = 5000;
const REFRESH_CHECKS = 3;

/**
 * The session's side of the cache. `loaded` says what V8 made of the cache at load: `accepted`,
 * `rejected`, `missing`, or `unavailable` (no build hash to key it by: nothing is read or written).
 */
function codeCacheControl(script, candidates, cachedData, refreshSpacingMs) {
  const accepted = cachedData !== undefined && !script.cachedDataRejected;
  const loaded = !candidates.length
    ? 'unavailable'
    : !cachedData
      ? 'missing'
      : accepted
        ? 'accepted'
        : 'rejected';
  /** Size of the cache on disk that this session knows to be good, once there is one. */
  let onDisk = accepted ? cachedData.length : undefined;
  // Date.now, not performance.now: the first touch of `performance` loads perf_hooks (about 1 ms).
  let lastCheck = Date.now();
  let checks = 0;
  let refreshed = false;
  let failed = false;
  /** A quiet moment came too soon after the last check: the exit makes up for it. */
  let skipped = false;

  /** Made with V8's default flags, which the next start compiles with (see MEMORY_FLAGS). */
  const create = () => {
    setFlags(DEFAULT_FLAGS);
    try {
      return script.createCachedData();
    } finally {
      setFlags(MEMORY_FLAGS);
    }
  };
  const write = (reason, data) => {
    const target = writeCache(candidates, data);
    if (!target) {
      failed = true;
      return undefined;
    }
    onDisk = data.length;
    lastCheck = Date.now();
    return { reason, bytes: data.length, file: target };
  };
  /** Writes the cache if there is none, or refreshes it once if it has grown; what was written. */
  const step = (atExit) => {
    if (failed || !candidates.length) return undefined;
    if (onDisk === undefined) return write('first', create());
    if (refreshed || checks >= REFRESH_CHECKS) return undefined;
    if (!atExit && Date.now() - lastCheck < refreshSpacingMs) {
      skipped = true;
      return undefined;
    }
    if (atExit && !skipped) return undefined;
    checks++;
    skipped = false;
    lastCheck = Date.now();
    const data = create();
    if (data.length < onDisk * REFRESH_GROWTH) return undefined;
    refreshed = true;
    return write('refresh', data);
  };

  process.once('exit', () => {
    try {
      step(true);
    } catch {}
  });
  return {
    loaded,
    /** Whether a later quiet moment could still write or refresh the cache. */
    get pending() {
      return (
        !failed && candidates.length > 0 && (onDisk === undefined || (!refreshed && checks < REFRESH_CHECKS))
      );
    },
    /** A quiet moment (nothing in flight, nothing asked for a while): write or refresh if due. */
    quietMoment() {
      try {
        return step(false);
      } catch {
        failed = true;
        return undefined;
      }
    },
  };
}

/** The bundle compiled, with its code cache if there is one that V8 takes. */
function compileWithCodeCache(file) {
  const source = fs.readFileSync(file, 'utf8');
  let candidates = [];
  try {
    const buildHash = fs.readFileSync(`${file}.build-hash`, 'utf8').trim();
    const stat = fs.statSync(file);
    candidates = cachePaths(file, `${buildHash}-${stat.size}-${Math.trunc(stat.mtimeMs)}`);
  } catch {}
  let cachedData;
  for (let i = 0; i < candidates.length && !cachedData; i++) cachedData = readCache(candidates[i], i > 0);
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  return {
    file,
    script,
    candidates,
    cachedData,
    warm: cachedData !== undefined && !script.cachedDataRejected,
  };
}

/** Runs a compiled bundle as the module `file`, where a later require of that path finds it. */
function run({ file, script }) {
  const bundle = new Module(file, module);
  bundle.filename = file;
  Module._cache[file] = bundle;
  script
    .runInThisContext()
    .call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, path.dirname(file));
  bundle.loaded = true;
  return bundle.exports;
}

/**
 * Loads the bundles, in order, a later one finding the earlier ones with `require`: `{ exports,
 * codeCache }`, the last one's exports and one control of all their caches, for the server's quiet
 * moments. All are compiled before the memory flags are set: V8 refuses a cache made under other
 * flags. `refreshSpacingMs` (tests): the least time between two growth checks. @default 5000
 */
module.exports = function loadBundles(files, { refreshSpacingMs = REFRESH_SPACING_MS } = {}) {
  const compiled = files.map(compileWithCodeCache);
  const warm = compiled.every((bundle) => bundle.warm);
  if (warm) setFlags(MEMORY_FLAGS);
  const exports = compiled.map(run).at(-1);
  if (!warm) setImmediate(() => setFlags(MEMORY_FLAGS));
  const controls = compiled.map(({ script, candidates, cachedData }) =>
    codeCacheControl(script, candidates, cachedData, refreshSpacingMs),
  );
  return { exports, codeCache: controls.length === 1 ? controls[0] : together(controls) };
};

/**
 * One control for the caches of bundles loaded together (the command line's index.cjs runs mostly
 * server.cjs's code): each quiet moment writes or refreshes each that is due. `loaded` is `accepted`
 * only if every one was; what was written is reported for the first that wrote.
 */
function together(controls) {
  return {
    get loaded() {
      return controls.map((control) => control.loaded).find((loaded) => loaded !== 'accepted') ?? 'accepted';
    },
    get pending() {
      return controls.some((control) => control.pending);
    },
    quietMoment() {
      const written = controls.map((control) => control.quietMoment());
      return written.find(Boolean);
    },
  };
}
