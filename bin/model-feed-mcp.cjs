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
// A client's plain start (no arguments, as nearly every client config has it) loads the server
// alone, so a first start compiles none of the command line (commander, call, watch, setup...). The
// command line's bundle takes the rest of its code from the server's (scripts/shared-modules.ts):
// that is loaded first, with its own code cache, and is what index.cjs's require then finds.
const bundles = process.argv.length > 2 ? ['server.cjs', 'index.cjs'] : ['server.cjs'];
const { exports: bundle, codeCache } = require('./load-bundle.cjs')(
  bundles.map((name) => require('node:path').join(__dirname, '../dist', name)),
);
bundle
  .main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    codeCache,
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
