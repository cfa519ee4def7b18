/**
 * The bin's loader: V8's code cache is used when it fits, refused when the bundle changed (even to
 * a source of the same length, which V8 alone would accept and run stale), and written only where
 * it is safe.
 */

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOADER = fileURLToPath(new URL('../../bin/load-bundle.cjs', import.meta.url));

function bundleDir(source: string, buildHash = 'a1b2c3d4e5f60718') {
  const dir = mkdtempSync(join(tmpdir(), 'load-bundle-'));
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
      `process.stdout.write(String(require(${JSON.stringify(LOADER)})(${JSON.stringify(join(dir, 'index.cjs'))}).value))`,
    ],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    },
  );
}

const caches = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8cache'));

describe('bin/load-bundle.cjs', () => {
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
    const temp = mkdtempSync(join(tmpdir(), 'load-bundle-tmp-'));
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
    const temp = mkdtempSync(join(tmpdir(), 'load-bundle-tmp-'));
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
});
