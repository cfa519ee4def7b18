// A reference point for scripts/bench.mjs, never part of the package: the least an MCP-over-stdio
// runner can do per call. It reads JSON-RPC lines, forwards every tools/call to the upstream URL
// in BENCH_FORWARD_PATHS (no SDK, no validation, no cache, no retries) and answers with a result
// of the runner's shape and size. The runner's overhead minus this one is what its own work costs.
const http = require('node:http');
const { getJson } = require('./bench-get-json.cjs');

const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
const base = process.env.MODEL_FEED_BASE_URL;
const key = process.env.MODEL_FEED_API_KEY;
const paths = JSON.parse(process.env.BENCH_FORWARD_PATHS);
let buffer = '';

const get = (path) => getJson(`${base}${path}`, key, agent);

async function answer(message) {
  let result = {};
  if (message.method === 'tools/call') {
    let data;
    for (const path of paths) data = await get(path);
    result = {
      content: [{ type: 'text', text: JSON.stringify(data).slice(0, 4000) }],
      structuredContent: data,
    };
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id !== undefined) answer(message);
  }
});
process.stdin.on('end', () => process.exit(0));
