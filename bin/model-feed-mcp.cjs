#!/usr/bin/env node
'use strict';
// Checked before anything else loads, in syntax any Node still in use can parse, so that an old
// Node prints one clear line instead of a syntax error from deep inside the bundle.
const MIN_NODE = [20, 18, 1];
const have = process.versions.node.split('.').map(Number);
const tooOld = MIN_NODE.some(
  (min, i) => have.slice(0, i).every((v, j) => v === MIN_NODE[j]) && have[i] < min,
);
if (tooOld) {
  process.stderr.write(
    `model-feed-mcp needs Node.js >= ${MIN_NODE.join('.')}, but this is ${process.version}. ` +
      'Install a current LTS from https://nodejs.org and try again.\n',
  );
  process.exit(1);
}

// A reader that closes the pipe early (`model-feed-mcp --help | head -3`) makes writes fail with
// EPIPE: not an error worth a stack trace. The stdio server and watch's stdout sink listen for it
// themselves and act on it.
process.stdout.on('error', () => {});
// Node >= 22.1 keeps the code it compiles for the bundle in a cache of its own, which it checks
// before use: a damaged or stale file is compiled anew, never run. It lives in the user's cache
// folder, not in the temp folder that every user shares.
// NODE_COMPILE_CACHE chooses another folder and NODE_DISABLE_COMPILE_CACHE turns it off, as for
// any Node program. A cache is only a speed-up: whatever fails here, the start goes on.
const nodeModule = require('node:module');
if (typeof nodeModule.enableCompileCache === 'function') {
  try {
    nodeModule.enableCompileCache(compileCacheFolder());
  } catch {}
}

// A client's plain start (no arguments, as nearly every client config has it) loads the stdio server
// alone, so a start compiles none of the command line (commander, call, watch, setup...).
const bundle = require(process.argv.length > 2 ? '../dist/index.cjs' : '../dist/server.cjs');
bundle
  .main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  })
  .then((code) => {
    // undefined: the stdio server, which runs until its input ends.
    if (code === undefined) return;
    process.exitCode = code;
    // A one-shot command (call, check, doctor) is done once what it wrote has left: a pipe holds
    // 64 KB and the rest waits here for the reader, however slow (exiting sooner cut `check`'s JSON
    // short, with exit code 0). An empty write's callback comes after every earlier write's, or with
    // the error of a reader gone. Then a DNS lookup past its timeout, which cannot be cancelled,
    // must not hold the process.
    let writing = 2;
    const written = () => {
      if (--writing === 0) setTimeout(() => process.exit(code), 200).unref();
    };
    process.stdout.write('', written);
    process.stderr.write('', written);
  });

/**
 * Where the compile cache lives: the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, macOS
 * `~/Library/Caches`, Windows `%LOCALAPPDATA%`), beside this package's own cache (src/store/paths.ts),
 * which holds the service's answers alone.
 */
function compileCacheFolder() {
  const { isAbsolute, join } = require('node:path');
  const home = () => require('node:os').homedir();
  if (process.platform === 'win32') {
    const local = (process.env.LOCALAPPDATA || '').trim() || join(home(), 'AppData', 'Local');
    return join(local, 'model-feed-mcp', 'CompileCache');
  }
  if (process.platform === 'darwin') return join(home(), 'Library', 'Caches', 'model-feed-mcp-compile-cache');
  const xdg = (process.env.XDG_CACHE_HOME || '').trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(home(), '.cache'), 'model-feed-mcp-compile-cache');
}
