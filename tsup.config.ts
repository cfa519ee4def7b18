import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';
import { lazyTopLevelConsts } from './scripts/lazy-top-level-consts.js';
import { toolJsonSchemasDefine } from './scripts/tool-json-schemas.js';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};

/**
 * The SDK's Server imports an Ajv-based validator at module level for elicitation, which this
 * server never uses (it passes its own validator). Resolving that module to a stub keeps Ajv and
 * its formats out of the bundle and out of start-up.
 */
const stubAjvProvider: Plugin = {
  name: 'stub-ajv-provider',
  setup(build) {
    build.onResolve({ filter: /validation\/ajv-provider\.js$/ }, () => ({
      path: fileURLToPath(new URL('./scripts/ajv-provider-stub.js', import.meta.url)),
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
 * on first use: undici (the first upstream request), the sandbox (`sandbox`, `--sandbox`) and the
 * JSONC and TOML parsers of `setup`.
 * Start-up then neither parses nor compiles them. Each chunk is self-contained: they share no
 * objects with the main bundle beyond plain data and callbacks.
 */
const lazyChunks: Plugin = {
  name: 'lazy-chunks',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, ({ importer }) =>
      importer.endsWith('/src/net/fetch.ts') ? { path: './undici.cjs', external: true } : undefined,
    );
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

/**
 * The MCP SDK's types.js builds every protocol schema at load, most of which a session never uses:
 * each is built on first use instead, and those nothing refers to are dropped from the bundle
 * (scripts/lazy-top-level-consts.ts).
 */
const lazySdkSchemas: Plugin = {
  name: 'lazy-sdk-schemas',
  setup(build) {
    build.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/ },
      ({ path }) => {
        const { code, lazy } = lazyTopLevelConsts(readFileSync(path, 'utf8'), path);
        if (lazy < 100) throw new Error(`the SDK's types.js changed shape: only ${lazy} schemas found`);
        return { contents: code, loader: 'js' };
      },
    );
  },
};

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    server: 'src/server-main.ts',
    undici: 'node_modules/undici/index.js',
    sandbox: 'src/sandbox/server.ts',
    'setup-formats': 'src/setup/formats.ts',
  },
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  // Zero runtime dependencies: everything the CLI runs is in dist/.
  noExternal: [/.*/],
  define: {
    __PACKAGE_VERSION__: JSON.stringify(pkg.version),
    __PACKAGE_ENGINES_NODE__: JSON.stringify(pkg.engines.node),
    __TOOL_JSON_SCHEMAS__: toolJsonSchemasDefine(),
  },
  minify: true,
  // `import()` becomes `require()`: the bin compiles the bundle with vm.Script (for V8's code
  // cache on Node 20), where a native dynamic import has no loader to call.
  esbuildOptions(options) {
    options.supported = { ...options.supported, 'dynamic-import': false };
  },
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: false,
  splitting: false,
  esbuildPlugins: [stubAjvProvider, lazyChunks, lazyChildProcessForCommander, lazySdkSchemas],
  // The key of the V8 code cache on Node 20 (bin/load-bundle.cjs): hashing at each start would
  // cost more than the cache saves.
  async onSuccess() {
    for (const bundle of ['dist/index.cjs', 'dist/server.cjs']) {
      writeFileSync(
        `${bundle}.build-hash`,
        createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 16),
      );
    }
  },
});
