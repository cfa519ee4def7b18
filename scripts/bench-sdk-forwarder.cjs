// A second reference point for scripts/bench.mjs, never part of the package: the least a runner
// built on the MCP SDK can do per call. The SDK's low-level Server over its own stdio transport
// forwards every tools/call to the upstream paths in BENCH_FORWARD_PATHS (no validation, no cache,
// no retries, no rendering) and answers with a result of the runner's shape and size. What it
// costs over scripts/bench-forwarder.cjs is the SDK's share; what the runner costs over it, the
// runner's own work.
const http = require('node:http');
const { getJson } = require('./bench-get-json.cjs');
const { Server } = require('@modelcontextprotocol/server');
const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio');

const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
const base = process.env.MODEL_FEED_BASE_URL;
const key = process.env.MODEL_FEED_API_KEY;
const paths = JSON.parse(process.env.BENCH_FORWARD_PATHS);

const get = (path) => getJson(`${base}${path}`, key, agent);

const server = new Server({ name: 'bench-sdk-forwarder', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', () => ({ tools: [] }));
server.setRequestHandler('tools/call', async () => {
  let data;
  for (const path of paths) data = await get(path);
  return {
    content: [{ type: 'text', text: JSON.stringify(data).slice(0, 4000) }],
    structuredContent: data,
  };
});
const transport = new StdioServerTransport();
// The bench closes stdin; an idle keep-alive socket would keep the process up after the transport closed.
process.stdin.on('end', () => process.exit(0));
server.connect(transport);
