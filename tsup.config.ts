import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};

/**
 * The SDK's Server imports an Ajv-based validator at module level for elicitation, which this
 * server never uses (it passes its own validator). Resolving that module to a stub keeps Ajv and
 * its formats out of the bundle and out of start-up.
 */
const stubAjvProvider = {
  name: 'stub-ajv-provider',
  setup(build: { onResolve: (o: { filter: RegExp }, cb: () => { path: string }) => void }) {
    build.onResolve({ filter: /validation\/ajv-provider\.js$/ }, () => ({
      path: fileURLToPath(new URL('./scripts/ajv-provider-stub.js', import.meta.url)),
    }));
  },
};

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  // Zero runtime dependencies: everything the CLI runs is in the bundle.
  noExternal: [/.*/],
  define: {
    __PACKAGE_VERSION__: JSON.stringify(pkg.version),
    __PACKAGE_ENGINES_NODE__: JSON.stringify(pkg.engines.node),
  },
  dts: true,
  clean: true,
  sourcemap: false,
  splitting: false,
  esbuildPlugins: [stubAjvProvider],
});
