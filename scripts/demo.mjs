// The newcomer's tour: a real MCP session over stdio with the built CLI in --sandbox mode
// (sample data, no key, no network): initialize, tools/list, then one call of each tool.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const bin = fileURLToPath(new URL('../bin/model-feed-mcp.cjs', import.meta.url));
// Bold headings only on a terminal, and never with NO_COLOR set (https://no-color.org): piped into
// a file or a CI log, escape codes are noise.
const bold = process.stdout.isTTY && !process.env.NO_COLOR;
const rule = (title) => console.log(bold ? `\n\x1b[1m== ${title}\x1b[0m` : `\n== ${title}`);
const indent = (text) => text.replace(/^/gm, '   ');

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, '--sandbox'],
  // Only PATH: the demo must not pick up a real key or proxy from this shell.
  env: { PATH: process.env.PATH ?? '' },
  stderr: 'inherit',
});
const client = new Client({ name: 'model-feed-mcp-demo', version: '1.0.0' });

rule(`initialize: node ${bin} --sandbox`);
await client.connect(transport);
const info = client.getServerVersion();
console.log(indent(`server ${info?.name} ${info?.version}\ninstructions: ${client.getInstructions()}`));

rule('tools/list');
const { tools } = await client.listTools();
for (const tool of tools) console.log(indent(`${tool.name} (${tool.title}): ${tool.description}`));

const calls = [
  ['list_model_changes', { since: 0, limit: 5 }],
  ['get_model', { id: 'deepseek-ai/DeepSeek-R1' }],
  ['search_models', { vendor: 'openai', maxInputPrice: 2, limit: 3 }],
];
for (const [name, args] of calls) {
  rule(`tools/call ${name} ${JSON.stringify(args)}`);
  const result = await client.callTool({ name, arguments: args });
  console.log(indent(result.content.map((part) => part.text).join('\n')));
  const items = result.structuredContent?.items;
  console.log(
    indent(
      `structuredContent: ${Array.isArray(items) ? `${items.length} items` : Object.keys(result.structuredContent ?? {}).join(', ')}`,
    ),
  );
}

await client.close();
console.log(
  '\nDone. Point MODEL_FEED_BASE_URL and MODEL_FEED_API_KEY at the real service to use it for real.',
);
