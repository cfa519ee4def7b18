/**
 * One server, three ways in: stdio, `--http` and the sandbox's `/api/mcp` must list the same tools,
 * resources, resource templates and prompts. Each list is compared as the endpoint answered it,
 * result or error: a list method one of them lacks must be lacking, with the same error, in all.
 * Everything runs from the build: the `sandbox` command is both the upstream service and the
 * third endpoint.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSession, connectCli, type RawProcess, scrubbedEnv, spawnRaw } from './harness.js';
import { type HttpCli, startHttpCli } from './http-support.js';

const LISTS = [
  ['tools/list', ListToolsResultSchema],
  ['resources/list', ListResourcesResultSchema],
  ['resources/templates/list', ListResourceTemplatesResultSchema],
  ['prompts/list', ListPromptsResultSchema],
] as const;

type Outcome = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** A list request's answer as data: the result, or the error's code, message and data. */
async function outcome(client: Client, index: number): Promise<Outcome> {
  const [method, schema] = LISTS[index] as (typeof LISTS)[number];
  try {
    return { result: await client.request({ method }, schema) };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { error: { code: error.code, message: error.message, data: error.data } };
  }
}

let sandbox: RawProcess;
let stdio: CliSession;
let http: HttpCli;
const clients: Record<string, Client> = {};

async function httpClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'parity', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  sandbox = spawnRaw(scrubbedEnv(), ['sandbox', '--port', '0']);
  const deadline = performance.now() + 10_000;
  while (!/Press Ctrl\+C/.test(sandbox.stdout())) {
    if (performance.now() > deadline) throw new Error(`sandbox did not start: ${sandbox.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /base URL\s+(\S+)/.exec(sandbox.stdout())?.[1] ?? '';
  const key = /API key\s+(mfsk_\S+)/.exec(sandbox.stdout())?.[1] ?? '';
  const env = scrubbedEnv({ MODEL_FEED_API_KEY: key, MODEL_FEED_BASE_URL: url });
  [stdio, http] = await Promise.all([connectCli(env), startHttpCli(env)]);
  clients.stdio = stdio.client;
  clients['--http'] = await httpClient(http.url, key);
  clients['sandbox /api/mcp'] = await httpClient(`${url}/api/mcp`, key);
});

afterAll(async () => {
  await Promise.allSettled([
    stdio?.close(),
    clients['--http']?.close(),
    clients['sandbox /api/mcp']?.close(),
  ]);
  if (http && http.raw.child.exitCode === null) await http.stop();
  sandbox?.child.kill('SIGINT');
  await sandbox?.exited;
});

describe('stdio, --http and the sandbox /api/mcp', () => {
  it.each(LISTS.map(([method], index) => [method, index] as const))(
    '%s: the same answer from all three',
    async (_method, index) => {
      const [viaStdio, viaHttp, viaSandbox] = await Promise.all(
        ['stdio', '--http', 'sandbox /api/mcp'].map((name) => outcome(clients[name] as Client, index)),
      );
      expect(viaHttp).toEqual(viaStdio);
      expect(viaSandbox).toEqual(viaStdio);
    },
  );

  it('lists the three tools, so the comparison is not of three empty answers', async () => {
    const tools = await outcome(clients.stdio as Client, 0);
    expect(tools).toMatchObject({ result: { tools: [{}, {}, {}] } });
  });
});
