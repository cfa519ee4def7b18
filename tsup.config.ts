import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
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
 * What the stdio server does not need to answer `tools/list` lives in bundles of its own, loaded on
 * first use: the sandbox (`sandbox`, `--sandbox`) and the JSONC and TOML parsers of `setup`. Start-up then neither parses nor compiles them. Each is
 * self-contained: they share no objects with the main bundle beyond plain data and callbacks.
 */
const lazyBundles: Plugin = {
  name: 'lazy-bundles',
  setup(build) {
    build.onResolve({ filter: /\/sandbox\/service\.js$/ }, ({ importer }) =>
      importer.includes('/src/sandbox/') ? undefined : { path: './sandbox.cjs', external: true },
    );
    build.onResolve({ filter: /\/setup\/formats\.js$/ }, () => ({
      path: './setup-formats.cjs',
      external: true,
    }));
  },
};

const bundles = {
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
  esbuildPlugins: [sdkShimsWithoutAjv, lazyBundles],
  esbuildOptions(options) {
    // jsonc-parser's `main` is a UMD build whose inner requires esbuild cannot follow; the ES
    // module build its `module` field names bundles. Every other dependency resolves through its
    // `exports`, which these fields do not change.
    options.mainFields = ['module', 'main'];
  },
  minify: true,
  sourcemap: false,
  splitting: false,
} satisfies Options;

export default defineConfig((): Options[] => {
  // Both builds below write to dist/ at once: neither may clean it, so it is cleaned here, first.
  rmSync('dist', { recursive: true, force: true });
  return [
    {
      ...bundles,
      // A client's plain start (no arguments) loads dist/server.cjs alone: the stdio server, none of
      // the command line (src/stdio-entry.ts).
      entry: { server: 'src/stdio-entry.ts' },
    },
    {
      ...bundles,
      entry: {
        index: 'src/index.ts',
        sandbox: 'src/sandbox/service.ts',
        'setup-formats': 'src/setup/formats.ts',
        // check's worker thread (src/check/pool.ts): it loads only Node's own modules.
        'check-worker': 'src/check/worker.ts',
      },
      dts: { entry: { index: 'src/index.ts' } },
    },
  ];
});
