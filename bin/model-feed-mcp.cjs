#!/usr/bin/env node
'use strict';
// Plain ES5 on purpose: this must run, and say something useful, on any Node.
var MIN_NODE = [20, 18, 1];
var have = process.versions.node.split('.').map(Number);
for (var i = 0; i < 3; i++) {
  if (have[i] > MIN_NODE[i]) break;
  if (have[i] < MIN_NODE[i]) {
    process.stderr.write(
      'model-feed-mcp needs Node.js >= ' + MIN_NODE.join('.') + ', but this is ' + process.version +
        '. Install a current LTS from https://nodejs.org and try again.\n',
    );
    process.exit(1);
  }
}

require('../dist/index.cjs')
  .main(process.argv.slice(2), {
    stdout: function (text) { process.stdout.write(text); },
    stderr: function (text) { process.stderr.write(text); },
    env: process.env,
  })
  .then(function (code) { if (code !== undefined) process.exitCode = code; });
