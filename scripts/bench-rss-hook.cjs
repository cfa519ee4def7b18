// Preloaded by scripts/bench-watch.mjs and scripts/bench-check.mjs into the process they measure:
// reports its peak RSS (kB) and CPU time (µs, every thread) on stderr as it exits. Never part of the
// package.
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(
    `bench-maxrss ${usage.maxRSS}\nbench-cpu ${usage.userCPUTime + usage.systemCPUTime}\n`,
  );
});
