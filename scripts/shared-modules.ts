/**
 * The build step that keeps dist/index.cjs from repeating dist/server.cjs. The stdio server is a
 * bundle of its own (src/server-main.ts) so that a client's start compiles only what it needs; the
 * command line (src/index.ts) uses most of the same modules: the config, the API client, the tools,
 * the MCP server, zod and the SDK. Bundled twice, they made the published package 490 KB, and two
 * copies of the SDK's classes would not know each other's objects.
 *
 * So what index.cjs takes from a module that server.cjs also bundles, it takes from server.cjs:
 * server.cjs exports those bindings in `sharedModules`, by module, and index.cjs holds for each
 * such module a stand-in that requires server.cjs and hands them on. `findSharedBindings` finds
 * them before the two real builds, with two probe builds (nothing written):
 * 1. server-main's bundle, for the ECMAScript modules in it;
 * 2. index's, as an ECMAScript module with each of those kept as an import of its own: what esbuild
 *    leaves of those imports, after tree shaking, is exactly what index uses from each.
 * server.cjs then keeps only what it did plus those bindings: its tree shaking, and so its start-up,
 * hardly change. A binding that is itself a namespace is the exception: zod's `z`, taken by a module
 * of the command line, kept all of zod in server.cjs, locales included (+350 KB). The package-size
 * test (test/e2e/package.test.ts) fails on such a slip; the command line validates by hand instead. CommonJS modules are not shared: their interop differs between the two sides.
 *
 * Loading server.cjs costs the command line nothing it did not pay before: it ran the same modules.
 * Figures (gzipped, as the package is): docs/benchmarks.md, "Package size".
 */

import { relative, resolve } from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';

/** What server.cjs calls the map from a module's path (relative to the project) to its bindings. */
const EXPORT_NAME = 'sharedModules';
const PROBE_PREFIX = 'shared:';
const STAND_IN_SUFFIX = '.shared.cjs';

/** A module's path → the names index takes from it, or `*` for its whole namespace. */
export type SharedBindings = ReadonlyMap<string, '*' | ReadonlySet<string>>;

function projectPath(path: string) {
  return relative(process.cwd(), path).split('\\').join('/');
}

/** Resolves every import through the build's other plugins and hands the result to `choose`. */
function onEveryModule(
  name: string,
  choose: (path: string) => { path: string; namespace?: string; external?: boolean } | undefined,
): Plugin {
  const probe = `${name}-resolving`;
  return {
    name,
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === probe || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: probe,
        });
        if (resolved.errors.length || resolved.external || !resolved.path) return undefined;
        return choose(projectPath(resolved.path));
      });
    },
  };
}

/** The names an import or re-export clause takes, as esbuild writes them (`{ a, b as c }`, `* as n`, `d`). */
function clauseNames(clause: string, statement: string): '*' | string[] {
  if (/^\*(\s+as\s+[\w$]+)?$/.test(clause)) return '*';
  const names: string[] = [];
  const braces = /\{([^}]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,/g, ' ')
    .trim();
  if (outside.startsWith('*')) return '*';
  if (outside) names.push('default');
  for (const item of braces?.[1]?.split(',') ?? []) {
    const name = item.trim().split(/\s+as\s+/)[0];
    if (name) names.push(name);
  }
  if (!names.length && !braces) throw new Error(`shared-modules: cannot read ${JSON.stringify(statement)}`);
  return names;
}

interface ProbedEntry {
  entry: string;
  plugins: Plugin[];
}

/**
 * What index takes from each module that server-main's bundle also holds, found with `options` and
 * each entry's plugins, the real builds' own. Fails where index would still bundle a copy of its own
 * of the MCP SDK.
 */
export async function findSharedBindings(
  options: BuildOptions,
  entries: { server: ProbedEntry; index: ProbedEntry },
): Promise<SharedBindings> {
  const probe = { ...options, bundle: true, write: false, outdir: 'probe', logLevel: 'silent' } as const;
  const server = await build({
    ...probe,
    entryPoints: [entries.server.entry],
    plugins: entries.server.plugins,
    metafile: true,
  });
  const inServer = new Set(
    Object.entries(server.metafile.inputs)
      .filter(([, input]) => input.format === 'esm')
      .map(([path]) => path),
  );
  const index = await build({
    ...probe,
    entryPoints: [entries.index.entry],
    format: 'esm',
    metafile: true,
    plugins: [
      onEveryModule('shared-modules-probe', (path) =>
        inServer.has(path) ? { path: `${PROBE_PREFIX}${path}`, external: true } : undefined,
      ),
      ...entries.index.plugins,
    ],
  });
  const ownSdk = Object.keys(index.metafile.inputs).filter((path) => path.includes('@modelcontextprotocol'));
  if (ownSdk.length) {
    throw new Error(
      `shared-modules: index.cjs would bundle a copy of the MCP SDK of its own: ${ownSdk.join(', ')}`,
    );
  }

  const bindings = new Map<string, '*' | Set<string>>();
  const code = index.outputFiles?.[0]?.text ?? '';
  const statements = /(?:^|[;\n])\s*(import|export)\s*([^;"]*?)\s*(?:from\s*)?"shared:([^"]+)";/g;
  for (const [statement, , clause = '', path = ''] of code.matchAll(statements)) {
    const names = clause ? clauseNames(clause, statement) : [];
    const known = bindings.get(path) ?? new Set<string>();
    bindings.set(path, known === '*' || names === '*' ? '*' : new Set([...known, ...names]));
  }
  const seen = new Set(Object.values(index.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path)));
  for (const path of seen) {
    if (path.startsWith(PROBE_PREFIX) && !bindings.has(path.slice(PROBE_PREFIX.length))) {
      throw new Error(`shared-modules: found no import statement of ${path} in the probe's output`);
    }
  }
  return bindings;
}

/** The server build: its entry also exports `sharedModules`, the bindings index takes. */
export function exportSharedModules(entry: string, shared: SharedBindings): Plugin {
  const entryPath = resolve(entry);
  const lines = [`export * from ${JSON.stringify(entryPath)};`];
  const members: string[] = [];
  [...shared].forEach(([path, names], i) => {
    const from = JSON.stringify(resolve(path));
    if (names === '*') {
      lines.push(`import * as m${i} from ${from};`);
      members.push(`  ${JSON.stringify(path)}: m${i},`);
      return;
    }
    const locals = [...names].map((name, j) => [name, `m${i}_${j}`] as const);
    lines.push(`import { ${locals.map(([name, local]) => `${name} as ${local}`).join(', ')} } from ${from};`);
    const getters = locals.map(([name, local]) => `get ${name}() { return ${local}; }`);
    members.push(`  ${JSON.stringify(path)}: { ${getters.join(', ')} },`);
  });
  const contents = [...lines, `export const ${EXPORT_NAME} = {`, ...members, '};'].join('\n');
  return {
    name: 'export-shared-modules',
    setup(build) {
      build.onResolve({ filter: /.*/ }, ({ path, kind }) =>
        kind === 'entry-point' && resolve(path) === entryPath
          ? { path: entryPath, namespace: 'shared-modules-entry' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'shared-modules-entry' }, () => ({
        contents,
        loader: 'ts',
        resolveDir: process.cwd(),
      }));
    },
  };
}

/**
 * The index build: an import of a shared module becomes a stand-in that hands on what server.cjs
 * exports for it (`bundle`, a path relative to the output folder). Marked as an ECMAScript module's,
 * so that a default export arrives as `default`, as it would have within one bundle.
 */
export function importSharedModules(shared: SharedBindings, bundle: string): Plugin {
  // The stand-in's own extension: esbuild reads a `.mjs` path as an ECMAScript module's, whatever it holds.
  const standIns = onEveryModule('import-shared-modules', (path) =>
    shared.has(path) ? { path: `${path}${STAND_IN_SUFFIX}`, namespace: 'shared-module' } : undefined,
  );
  return {
    name: standIns.name,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${bundle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }, () => ({
        path: bundle,
        external: true,
      }));
      standIns.setup(build);
      build.onLoad({ filter: /.*/, namespace: 'shared-module' }, ({ path: standIn }) => {
        const path = standIn.slice(0, -STAND_IN_SUFFIX.length);
        return {
          contents: [
            `const shared = require(${JSON.stringify(bundle)}).${EXPORT_NAME}[${JSON.stringify(path)}];`,
            `if (!shared) throw new Error(${JSON.stringify(`${bundle} does not export ${path}: build both bundles again`)});`,
            "Object.defineProperty(exports, '__esModule', { value: true });",
            'for (const name of Object.keys(shared)) {',
            '  Object.defineProperty(exports, name, { enumerable: true, get: () => shared[name] });',
            '}',
          ].join('\n'),
          loader: 'js',
          resolveDir: process.cwd(),
        };
      });
    },
  };
}
