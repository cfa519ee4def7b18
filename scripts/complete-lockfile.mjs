// Adds the lock entries npm leaves out for platform-specific optional packages.
//
// npm records an optional dependency only if it can fetch its manifest, and the registry mirror
// this project is built against serves only the linux-gnu builds of native packages (biome,
// rollup). Without entries for the other platforms `npm ci` refuses the lockfile ("Missing: … from
// lock file"). Each stub names the version and the platform (inferred from the package name), so
// `npm ci` skips it on a mismatched platform and fetches it by name@version where it matches.
// Run after any dependency change: `npm run lockfile`.
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'netbsd',
  'openbsd',
  'openharmony',
  'sunos',
  'win32',
];
const CPUS = ['arm', 'arm64', 'ia32', 'loong64', 'mips64el', 'ppc64', 'riscv64', 's390x', 'x64'];

/** os, cpu and libc from a name like `@rollup/rollup-linux-arm64-musl` or `@biomejs/cli-win32-x64`. */
function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const osIndex = tokens.findIndex((t) => OSES.includes(t));
  const cpu = tokens[osIndex + 1];
  if (osIndex < 0 || !CPUS.includes(cpu)) return undefined;
  const os = tokens[osIndex];
  const rest = tokens.slice(osIndex + 2).join('-');
  const libc =
    os !== 'linux' ? undefined : rest.includes('musl') ? 'musl' : rest.includes('gnu') ? 'glibc' : undefined;
  return { os: [os], cpu: [cpu], ...(libc && { libc: [libc] }) };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!/^\d+\.\d+\.\d+/.test(spec) || !platform) {
      throw new Error(
        `cannot complete ${name}@${spec} (needed by ${location || 'the root'}): add it by hand`,
      );
    }
    lock.packages[`node_modules/${name}`] = {
      version: spec,
      ...(entry.dev && { dev: true }),
      optional: true,
      ...platform,
    };
    added.push(`${name}@${spec}`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added ${added.length} platform entries: ${added.join(', ')}` : 'lockfile already complete',
);
