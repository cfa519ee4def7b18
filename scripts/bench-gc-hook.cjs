// Preloaded by scripts/bench.mjs into the server it measures (node --expose-gc --require …):
// on SIGUSR2, collect garbage and report the heap in use on stderr. Never part of the package.
process.on('SIGUSR2', () => {
  global.gc();
  process.stderr.write(`bench-heap ${process.memoryUsage().heapUsed}\n`);
});
