// What commander sees as `node:child_process` in the bundle: the module itself, loaded at the first
// property read. Commander requires it at load for executable subcommands, which this CLI has
// none of; loading it at start-up cost about 4 ms (child_process, net's dgram and socket lists).
'use strict';
module.exports = new Proxy({}, { get: (_target, name) => require('node:child_process')[name] });
