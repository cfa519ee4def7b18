import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin, PluginBuild } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import { lazyBuildFunctions, lazyModuleSchemas } from './scripts/lazy-sdk-schemas.js';
import { exportSharedModules, findSharedBindings, importSharedModules } from './scripts/shared-modules.js';
import { toolJsonSchemasDefine } from './scripts/tool-json-schemas.js';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};

/**
 * The SDK's Node shims import an Ajv-based validator at module level for elicitation, which this
 * server never uses (it passes its own validator). Resolving them to a stand-in keeps Ajv and its
 * formats out of the bundle and out of start-up.
 */
const sdkShimsWithoutAjv: Plugin = {
  name: 'sdk-shims-without-ajv',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, () => ({
      path: fileURLToPath(new URL('./scripts/sdk-node-shims.js', import.meta.url)),
    }));
  },
};

/**
 * commander requires node:child_process at load, for executable subcommands this CLI does not
 * have: it gets a proxy that loads the module on first use (scripts/lazy-child-process.cjs).
 */
const lazyChildProcessForCommander: Plugin = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    // Rewritten at load: tsup's own handling of `node:` imports runs before any onResolve here.
    build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, ({ path }) => {
      const proxy = JSON.stringify(
        fileURLToPath(new URL('./scripts/lazy-child-process.cjs', import.meta.url)),
      );
      const source = readFileSync(path, 'utf8');
      const contents = source.replace("require('node:child_process')", `require(${proxy})`);
      if (contents === source) throw new Error('commander no longer requires node:child_process as expected');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * What the stdio server does not need to answer `tools/list` lives in chunks of its own, required
 * on first use: the sandbox (`sandbox`, `--sandbox`) and the JSONC and TOML parsers of `setup`.
 * Start-up then neither parses nor compiles them. Each chunk is self-contained: they share no
 * objects with the main bundle beyond plain data and callbacks.
 */
const lazyChunks: Plugin = {
  name: 'lazy-chunks',
  setup(build) {
    build.onResolve({ filter: /\/sandbox\/server\.js$/ }, ({ importer }) =>
      importer.includes('/src/sandbox/') ? undefined : { path: './sandbox.cjs', external: true },
    );
    build.onResolve({ filter: /\/setup\/formats\.js$/ }, () => ({
      path: './setup-formats.cjs',
      external: true,
    }));
    // jsonc-parser's `main` is a UMD build whose inner requires esbuild cannot follow; its ESM build bundles.
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({
      path: fileURLToPath(new URL('./node_modules/jsonc-parser/lib/esm/main.js', import.meta.url)),
    }));
  },
};

/** Fails a build where a file meant for the rewrite is missing or holds fewer schemas than expected. */
function expectRewrites(build: PluginBuild, plugin: string, kinds: readonly string[]) {
  const rewritten = new Set<string>();
  build.onStart(() => rewritten.clear());
  build.onEnd(() => {
    const missing = kinds.filter((kind) => !rewritten.has(kind));
    if (!missing.length) return undefined;
    return {
      errors: [{ text: `${plugin}: no ${missing.join(', ')} found to rewrite: the MCP SDK changed shape` }],
    };
  });
  return (path: string, kind: string, counts: Record<string, [found: number, least: number]>) => {
    for (const [what, [found, least]] of Object.entries(counts)) {
      if (found < least) {
        throw new Error(
          `${plugin}: ${path}: ${found} ${what} made lazy, expected ${least} or more: the MCP SDK changed shape`,
        );
      }
    }
    rewritten.add(kind);
  };
}

/**
 * Core's neutral protocol schemas (some 180, built at module load on every start) become stand-ins
 * built on first touch: scripts/lazy-sdk-schemas.ts, where the measurements are.
 */
const lazySdkCoreSchemas: Plugin = {
  name: 'lazy-sdk-core-schemas',
  setup(build) {
    const done = expectRewrites(build, 'lazy-sdk-core-schemas', ['schemas-*.mjs', 'auth-*.mjs']);
    build.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]core[\\/]dist[\\/](schemas|auth)-[\w-]+\.mjs$/ },
      ({ path }) => {
        const { code, lazy } = lazyModuleSchemas(readFileSync(path, 'utf8'), path);
        const kind = /[\\/]schemas-[^\\/]+$/.test(path) ? 'schemas-*.mjs' : 'auth-*.mjs';
        done(path, kind, { schemas: [lazy, kind === 'schemas-*.mjs' ? 150 : 10] });
        return { contents: code, loader: 'js' };
      },
    );
  },
};

/**
 * Each era's wire schemas (150-170, built all at once on the era's first message) become stand-ins
 * built on first touch: scripts/lazy-sdk-schemas.ts, where the measurements are.
 */
const lazySdkWireSchemas: Plugin = {
  name: 'lazy-sdk-wire-schemas',
  setup(build) {
    const done = expectRewrites(build, 'lazy-sdk-wire-schemas', ['src-*.mjs']);
    build.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]server[\\/]dist[\\/]src-[\w-]+\.mjs$/ },
      ({ path }) => {
        const { code, lazy } = lazyBuildFunctions(readFileSync(path, 'utf8'), path, [
          'buildSchemas2025',
          'buildSchemas2026',
        ]);
        done(path, 'src-*.mjs', {
          '2025 wire schemas': [lazy.buildSchemas2025 ?? 0, 130],
          '2026 wire schemas': [lazy.buildSchemas2026 ?? 0, 150],
        });
        return { contents: code, loader: 'js' };
      },
    );
  },
};

/**
 * `MODEL_FEED_BUILD_WITHOUT=lazy-sdk-core-schemas,…`: leaves out the named build-time rewrites, so that
 * a build with and one without can be timed against each other (scripts/bench-startup-ab.mjs).
 */
const without = new Set((process.env.MODEL_FEED_BUILD_WITHOUT ?? '').split(',').filter(Boolean));
const sdkRewrites = [lazySdkCoreSchemas, lazySdkWireSchemas];
for (const name of without) {
  if (!sdkRewrites.some((plugin) => plugin.name === name)) {
    throw new Error(
      `MODEL_FEED_BUILD_WITHOUT: no rewrite named ${name} (${sdkRewrites.map((p) => p.name).join(', ')})`,
    );
  }
}
const rewrites = sdkRewrites.filter((plugin) => !without.has(plugin.name));

/** What both bundles are built with, and the probe that finds the modules they share. */
const define = {
  __PACKAGE_VERSION__: JSON.stringify(pkg.version),
  __PACKAGE_ENGINES_NODE__: JSON.stringify(pkg.engines.node),
  __TOOL_JSON_SCHEMAS__: toolJsonSchemasDefine(),
};
// `import()` becomes `require()`: the bin compiles the bundle with vm.Script (for V8's code cache on
// Node 20), where a native dynamic import has no loader to call.
const supported = { 'dynamic-import': false };
const plugins = [sdkShimsWithoutAjv, lazyChunks, lazyChildProcessForCommander];
const bundles = {
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  // Zero runtime dependencies: everything the CLI runs is in dist/.
  noExternal: [/.*/],
  define,
  minify: true,
  esbuildOptions(options) {
    options.supported = { ...options.supported, ...supported };
  },
  sourcemap: false,
  splitting: false,
} satisfies Options;

const SERVER_ENTRY = 'src/server-main.ts';

export default defineConfig(async (): Promise<Options[]> => {
  // Both builds below write to dist/ at once: neither may clean it, so it is cleaned here, first.
  rmSync('dist', { recursive: true, force: true });
  const shared = await findSharedBindings(
    { platform: 'node', target: 'node20', format: 'cjs', define, supported },
    {
      server: { entry: SERVER_ENTRY, plugins: [...plugins, ...rewrites] },
      index: { entry: 'src/index.ts', plugins },
    },
  );
  return [
    {
      ...bundles,
      entry: { server: SERVER_ENTRY },
      esbuildPlugins: [exportSharedModules(SERVER_ENTRY, shared), ...plugins, ...rewrites],
      onSuccess: () => writeBuildHash('dist/server.cjs'),
    },
    {
      ...bundles,
      entry: {
        index: 'src/index.ts',
        sandbox: 'src/sandbox/server.ts',
        'setup-formats': 'src/setup/formats.ts',
      },
      dts: { entry: { index: 'src/index.ts' } },
      // The SDK's schema modules are all shared, so the rewrites have nothing to do here.
      esbuildPlugins: [importSharedModules(shared, './server.cjs'), ...plugins],
      onSuccess: () => writeBuildHash('dist/index.cjs'),
    },
    {
      ...bundles,
      // check's worker thread (src/check/pool.ts): self-contained, without the shared modules, so
      // that a worker loads neither server.cjs nor, through it, the MCP SDK and zod.
      entry: { 'check-worker': 'src/check/worker.ts' },
    },
  ];
});

/**
 * The key of the V8 code cache (bin/load-bundle.cjs), written beside the bundle: hashing at each
 * start would cost more than the cache saves.
 */
async function writeBuildHash(bundle: string) {
  writeFileSync(
    `${bundle}.build-hash`,
    createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 16),
  );
}
