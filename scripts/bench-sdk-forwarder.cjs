// A second reference point for scripts/bench.mjs, never part of the package: the least a runner
// built on the MCP SDK can do per call. The SDK's low-level Server over its own stdio transport
// forwards every tools/call to the upstream paths in BENCH_FORWARD_PATHS (no validation, no cache,
// no retries, no rendering) and answers with a result of the runner's shape and size. What it
// costs over scripts/bench-forwarder.cjs is the SDK's share; what the runner costs over it, the
// runner's own work.
const http = require('node:http');
const { getJson } = require('./bench-get-json.cjs');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
const base = process.env.MODEL_FEED_BASE_URL;
const key = process.env.MODEL_FEED_API_KEY;
const paths = JSON.parse(process.env.BENCH_FORWARD_PATHS);

const get = (path) => getJson(`${base}${path}`, key, agent);

const server = new Server({ name: 'bench-sdk-forwarder', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
// Like the runner, through the Protocol's fallback handler: the Server's own tools/call wrapper
// would re-parse every request and result (src/server.ts).
server.fallbackRequestHandler = async () => {
  let data;
  for (const path of paths) data = await get(path);
  return {
    content: [{ type: 'text', text: JSON.stringify(data).slice(0, 4000) }],
    structuredContent: data,
  };
};
const transport = new StdioServerTransport();
// The SDK's transport does not exit when stdin ends (docs/benchmarks.md); the bench closes stdin.
process.stdin.on('end', () => process.exit(0));
server.connect(transport);
