/**
 * The bin's loader: V8's code cache is used when it fits, refused when the bundle changed (even to
 * a source of the same length, which V8 alone would accept and run stale), and written only where
 * it is safe: at the session's first quiet moment (so a process killed with SIGKILL leaves one),
 * refreshed once when the session compiled much more, or at exit.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';

const LOADER = fileURLToPath(new URL('../../bin/load-bundle.cjs', import.meta.url));

function bundleDir(source: string, buildHash = 'a1b2c3d4e5f60718') {
  const dir = tempFolder('load-bundle-');
  writeFileSync(join(dir, 'index.cjs'), source);
  writeFileSync(join(dir, 'index.cjs.build-hash'), buildHash);
  return dir;
}

/** Loads the bundle in a fresh process (caches are made at exit) and returns what it exported. */
function load(dir: string, env: Record<string, string> = {}): string {
  return execFileSync(
    process.execPath,
    [
      '-e',
      `process.stdout.write(String(require(${JSON.stringify(LOADER)})([${JSON.stringify(join(dir, 'index.cjs'))}]).exports.value))`,
    ],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    },
  );
}

/**
 * Runs `steps` (JavaScript, with `bundle` the exports and `codeCache` the loader's control) in a
 * fresh process that loads the bundle, then ends it with SIGKILL: no exit handler runs. Returns what
 * the steps printed, one JSON value a line.
 */
function session(dir: string, steps: string): unknown[] {
  const script = `
    const out = (value) => process.stdout.write(JSON.stringify(value ?? null) + '\\n');
    const { exports: bundle, codeCache } = require(${JSON.stringify(LOADER)})(
      [${JSON.stringify(join(dir, 'index.cjs'))}], { refreshSpacingMs: 0 });
    ${steps}
    process.kill(process.pid, 'SIGKILL');`;
  const result = spawnSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  expect(result.signal).toBe('SIGKILL');
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

/** A bundle whose `more()` compiles many functions that loading alone leaves uncompiled. */
function growingBundle(): string {
  const functions = Array.from(
    { length: 400 },
    (_, i) => `function f${i}(x) { return [x, ${i}].map((y) => y * ${i} + String(y).length).join(':'); }`,
  );
  const calls = Array.from({ length: 400 }, (_, i) => `f${i}(n)`).join(' + ');
  return `${functions.join('\n')}\nmodule.exports = { value: 'grows', more(n) { return ${calls}; } };`;
}

const caches = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8cache'));

describe('bin/load-bundle.cjs', () => {
  it("restores this Node's own V8 defaults while it makes the cache", () => {
    // A cache made with other flags than a start compiles with is refused at every start.
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toContain('default: --heap-growing-percent=0');
    expect(options).toContain('default: --semi-space-growth-factor=2');
    expect(readFileSync(LOADER, 'utf8')).toContain(
      "const DEFAULT_FLAGS = ['--heap-growing-percent=0', '--semi-space-growth-factor=2'];",
    );
  });

  it('sets the memory flags after a first start has loaded, before a warm one runs, and makes the cache with the defaults', () => {
    const dir = bundleDir(
      "require('node:v8').setFlagsFromString('--loaded-marker'); module.exports = { value: 'x' };",
    );
    // node:v8's setFlagsFromString records what it is asked, in order, before the loader runs.
    const script = `
      const v8 = require('node:v8');
      const flags = [];
      v8.setFlagsFromString = (flag) => void flags.push(flag);
      const { codeCache } = require(${JSON.stringify(LOADER)})([${JSON.stringify(join(dir, 'index.cjs'))}]);
      const atLoad = flags.splice(0);
      setImmediate(() => {
        const afterLoad = flags.splice(0);
        codeCache.quietMoment();
        process.stdout.write(JSON.stringify({ atLoad, afterLoad, atCache: flags }));
      });`;
    const run = () =>
      JSON.parse(
        execFileSync(process.execPath, ['-e', script], {
          env: { PATH: process.env.PATH ?? '' },
          encoding: 'utf8',
        }),
      ) as Record<string, string[]>;
    const out = run();
    // No cache yet: the bundle loads with V8's defaults, the flags come after.
    expect(out.atLoad).toEqual(['--loaded-marker']);
    expect(out.afterLoad).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(out.atCache).toEqual([
      '--heap-growing-percent=0',
      '--semi-space-growth-factor=2',
      '--heap-growing-percent=50',
      '--semi-space-growth-factor=1',
    ]);
    // The cache written above is accepted: the flags come before the bundle runs.
    const warm = run();
    expect(warm.atLoad).toEqual([
      '--heap-growing-percent=50',
      '--semi-space-growth-factor=1',
      '--loaded-marker',
    ]);
    expect(warm.afterLoad).toEqual([]);
  });

  it('writes a cache beside the bundle at exit, and uses it next time without rewriting it', () => {
    const dir = bundleDir('module.exports = { value: "first" };');
    expect(load(dir)).toBe('first');
    const [cache] = caches(dir);
    expect(cache).toMatch(
      new RegExp(
        `^index\\.cjs\\.a1b2c3d4e5f60718-\\d+-\\d+\\.${process.version}\\.${process.arch}\\.v8cache$`,
      ),
    );
    const written = statSync(join(dir, cache!)).mtimeMs;
    expect(load(dir)).toBe('first');
    // A rejected cache would be replaced at exit: an unchanged file means V8 accepted it.
    expect(statSync(join(dir, cache!)).mtimeMs).toBe(written);
    expect(statSync(join(dir, cache!)).mode & 0o777).toBe(0o600);
  });

  it('never runs stale code when the bundle changes to a source of the same length', () => {
    const dir = bundleDir('module.exports = { value: "aaaa" };');
    expect(load(dir)).toBe('aaaa');
    writeFileSync(join(dir, 'index.cjs'), 'module.exports = { value: "bbbb" };');
    // Even with the same build hash and an mtime set back: the key changes with the rebuild's hash,
    // and here (a hand edit) with the mtime; set both back and V8 would run the old code.
    expect(load(dir)).toBe('bbbb');
    const rebuilt = bundleDir('module.exports = { value: "cccc" };', 'ffffffffffffffff');
    expect(load(rebuilt)).toBe('cccc');
  });

  it('falls back to a private file in the temp folder when the bundle folder takes no cache', () => {
    const dir = bundleDir(`module.exports = { value: "tmp-${Date.now()}" };`);
    const temp = tempFolder('load-bundle-tmp-');
    // A directory where the cache file would go makes writing beside the bundle fail, even as root.
    const stat = statSync(join(dir, 'index.cjs'));
    const name = `index.cjs.a1b2c3d4e5f60718-${stat.size}-${Math.trunc(stat.mtimeMs)}.${process.version}.${process.arch}.v8cache`;
    mkdirSync(join(dir, name));
    load(dir, { TMPDIR: temp });
    const [fallback] = readdirSync(temp).filter((f) => f.endsWith('.v8cache'));
    expect(fallback).toBe(`model-feed-mcp-${process.getuid?.()}-${name}`);
    expect(statSync(join(temp, fallback!)).mode & 0o777).toBe(0o600);
  });

  it('ignores a cache in the shared temp folder that others could have written', () => {
    const dir = bundleDir('module.exports = { value: "safe" };');
    const temp = tempFolder('load-bundle-tmp-');
    const stat = statSync(join(dir, 'index.cjs'));
    const name = `index.cjs.a1b2c3d4e5f60718-${stat.size}-${Math.trunc(stat.mtimeMs)}.${process.version}.${process.arch}.v8cache`;
    mkdirSync(join(dir, name));
    const planted = join(temp, `model-feed-mcp-${process.getuid?.()}-${name}`);
    writeFileSync(planted, 'not a V8 cache');
    chmodSync(planted, 0o666);
    utimesSync(planted, 1, 1);
    expect(load(dir, { TMPDIR: temp })).toBe('safe');
    // Refused for reading, then replaced (atomically, by rename) with a cache of this user's own.
    expect(readFileSync(planted, 'utf8')).not.toBe('not a V8 cache');
    expect(statSync(planted).mode & 0o777).toBe(0o600);
  });

  it('writes the cache at the first quiet moment, so a killed process leaves one the next start uses', () => {
    const dir = bundleDir('module.exports = { value: "killed" };');
    const [loaded, written, pending] = session(
      dir,
      'out(codeCache.loaded); out(codeCache.quietMoment()); out(codeCache.pending);',
    );
    expect(loaded).toBe('missing');
    const [cache] = caches(dir);
    expect(written).toEqual({ reason: 'first', bytes: expect.any(Number), file: join(dir, cache!) });
    expect(statSync(join(dir, cache!)).size).toBe((written as { bytes: number }).bytes);
    expect(statSync(join(dir, cache!)).mode & 0o777).toBe(0o600);
    // No temp file left behind by the atomic write.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(pending).toBe(true);
    // V8 accepted it: the flag set after loading was restored while it was made mid-session.
    expect(session(dir, 'out(codeCache.loaded);')).toEqual(['accepted']);
  });

  it('refreshes the cache once when the session has compiled much more, and then stops', () => {
    const dir = bundleDir(growingBundle());
    const [first, grown, after, pending] = session(
      dir,
      'out(codeCache.quietMoment()); bundle.more(1); out(codeCache.quietMoment()); bundle.more(2); out(codeCache.quietMoment()); out(codeCache.pending);',
    );
    expect(first).toMatchObject({ reason: 'first' });
    expect(grown).toMatchObject({ reason: 'refresh' });
    expect((grown as { bytes: number }).bytes).toBeGreaterThan((first as { bytes: number }).bytes * 1.05);
    expect(after).toBeNull();
    expect(pending).toBe(false);
    const [cache] = caches(dir);
    expect(statSync(join(dir, cache!)).size).toBe((grown as { bytes: number }).bytes);
    // The next start uses the larger cache, and has nothing to add to it.
    expect(session(dir, 'out(codeCache.loaded); bundle.more(3); out(codeCache.quietMoment());')).toEqual([
      'accepted',
      null,
    ]);
  });

  it('leaves an accepted cache alone when the session compiled nothing new, and checks only a few times', () => {
    const dir = bundleDir(growingBundle());
    session(dir, 'bundle.more(1); codeCache.quietMoment();');
    const [cache] = caches(dir);
    const written = statSync(join(dir, cache!)).mtimeMs;
    const results = session(
      dir,
      'out(codeCache.loaded); for (let i = 0; i < 5; i++) out(codeCache.quietMoment()); out(codeCache.pending);',
    );
    expect(results).toEqual(['accepted', null, null, null, null, null, false]);
    expect(statSync(join(dir, cache!)).mtimeMs).toBe(written);
  });

  it('keeps nothing without a build hash to key the cache by', () => {
    const dir = bundleDir('module.exports = { value: "unkeyed" };');
    rmSync(join(dir, 'index.cjs.build-hash'));
    expect(
      session(dir, 'out(codeCache.loaded); out(codeCache.quietMoment()); out(codeCache.pending);'),
    ).toEqual(['unavailable', null, false]);
    expect(load(dir)).toBe('unkeyed');
    expect(caches(dir)).toEqual([]);
  });
});
