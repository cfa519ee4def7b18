'use strict';
/**
 * Loads the bundle with V8's code cache, so start-up skips most of parsing and compiling it. Node 20
 * has no compile cache of its own; Node >= 22.1 has one (module.enableCompileCache), but it keeps
 * only the functions compiled while loading, and measured slower here (2.8 x bare node against
 * 2.3 x). So on every version the bundle is compiled through vm.Script, and the cache is made at
 * exit, when the session has compiled what it uses. It is kept beside the bundle or, where that
 * folder is read-only, in the temp folder, owned by this user only.
 *
 * V8 accepts a cache made for another source of the same length and then runs the old code, so the
 * cache is keyed by the build's hash of the bundle (written next to it at build time) plus its size
 * and mtime, which catch an edit made after the build.
 */
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
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

/** Writes the cache to the first folder that takes it; never throws (a cache is only a speed-up). */
function writeCache(candidates, data) {
  for (const target of candidates) {
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
      fs.renameSync(temporary, target);
      return;
    } catch {
      try {
        fs.unlinkSync(temporary);
      } catch {}
    }
  }
}

/**
 * V8 lets the young generation grow to 2 x 16 MB when calls arrive faster than it collects, which
 * alone puts a long session's RSS past 100 MB. Once the bundle has loaded, it stops growing:
 * scavenges come more often and take less each (docs/benchmarks.md). Not before: loading
 * allocates a lot at once and would take 15 ms longer.
 */
const GROW_YOUNG_GENERATION = '--semi-space-growth-factor=2'; // V8's default, in Node 20 and 24
const KEEP_YOUNG_GENERATION = '--semi-space-growth-factor=1';

function loadWithCodeCache(file) {
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
  const bundle = new Module(file, module);
  bundle.filename = file;
  Module._cache[file] = bundle;
  script
    .runInThisContext()
    .call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, path.dirname(file));
  bundle.loaded = true;

  v8.setFlagsFromString(KEEP_YOUNG_GENERATION);
  if (candidates.length && (!cachedData || script.cachedDataRejected)) {
    // Made at exit, when the session has compiled the functions it used: they are cached too. V8
    // keys its code cache by the flags, and the next start compiles with the defaults: restore them.
    process.once('exit', () => {
      v8.setFlagsFromString(GROW_YOUNG_GENERATION);
      writeCache(candidates, script.createCachedData());
    });
  }
  return bundle.exports;
}

module.exports = function loadBundle(file) {
  return loadWithCodeCache(file);
};
