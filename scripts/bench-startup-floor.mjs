// The start-up floor under the start-up targets: the least a stdio server built on the same MCP SDK
// does to answer `tools/list` (the SDK's Server and serveStdio, one handler returning this server's
// own listings), bundled as dist/server.cjs is and started through the same bin. What this build
// costs over that floor is our own share of a start; the floor's ratio to bare node is the least any
// change of ours can reach without a change in the SDK.
//
//   node scripts/bench-startup-floor.mjs [--runs N] [--node PATH]...
//
// Run after `npm run build`. It copies this build and builds the floor in a temporary folder, then
// runs scripts/bench-startup-ab.mjs with this build as A and the floor as B.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tools = require(join(root, 'dist/index.cjs')).listTools();

const work = mkdtempSync(join(tmpdir(), 'model-feed-floor-'));
// bench-startup-ab.mjs keeps a cache folder in each build's folder: copies, so that none lands here.
const ours = join(work, 'model-feed-mcp');
const floor = join(work, 'sdk-floor');
try {
  for (const dir of ['bin', 'dist']) cpSync(join(root, dir), join(ours, dir), { recursive: true });
  const entry = join(work, 'floor.mjs');
  writeFileSync(
    entry,
    `import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
const tools = ${JSON.stringify(tools)};
export async function main() {
  serveStdio(() => {
    const server = new Server({ name: 'floor', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools }));
    return server;
  });
  // The SDK's stdio transport does not end with its input.
  process.stdin.on('end', () => process.exit(0));
  return undefined;
}
`,
  );
  await build({
    entry: { server: entry },
    outDir: join(floor, 'dist'),
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    minify: true,
    silent: true,
    config: false,
    // Resolved from this project, as the real build resolves them.
    esbuildOptions(options) {
      options.nodePaths = [join(root, 'node_modules')];
      options.mainFields = ['module', 'main'];
    },
    // The same stand-in for the SDK's Node shims as tsup.config.ts: no Ajv.
    esbuildPlugins: [
      {
        name: 'sdk-shims-without-ajv',
        setup(bundler) {
          bundler.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, () => ({
            path: join(root, 'scripts/sdk-node-shims.js'),
          }));
        },
      },
    ],
  });
  cpSync(join(root, 'bin/model-feed-mcp.cjs'), join(floor, 'bin/model-feed-mcp.cjs'));
  execFileSync(
    process.execPath,
    [join(root, 'scripts/bench-startup-ab.mjs'), ...process.argv.slice(2), ours, floor],
    { stdio: 'inherit' },
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
