// Preloaded by scripts/bench-watch.mjs into the watcher it measures: reports the process's peak
// RSS (kB) on stderr as it exits. Never part of the package.
process.on('exit', () => process.stderr.write(`bench-maxrss ${process.resourceUsage().maxRSS}\n`));
