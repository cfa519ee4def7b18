import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';
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
  esbuildPlugins: [sdkShimsWithoutAjv, lazyChunks, lazyChildProcessForCommander],
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
