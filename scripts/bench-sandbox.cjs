// The sandbox in a process of its own, for scripts/bench.mjs: a latency baseline must not run in
// the same event loop as the client measuring it. Prints {url, key} as one JSON line; stops when
// its stdin closes.
const { startSandbox } = require('../dist/sandbox.cjs');

startSandbox({ tier: 'pro' }).then((sandbox) => {
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, key: sandbox.key })}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => sandbox.close().then(() => process.exit(0)));
});
