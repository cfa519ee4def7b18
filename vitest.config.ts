import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { toolJsonSchemasDefine } from './scripts/tool-json-schemas.js';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
  engines: { node: string };
};

export default defineConfig({
  define: {
    __PACKAGE_VERSION__: JSON.stringify(pkg.version),
    __PACKAGE_ENGINES_NODE__: JSON.stringify(pkg.engines.node),
    __TOOL_JSON_SCHEMAS__: toolJsonSchemasDefine(),
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn processes: keep them from fighting over 2 cores.
    maxWorkers: 2,
  },
});
