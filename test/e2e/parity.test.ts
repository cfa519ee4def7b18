/**
 * One server, three ways in: stdio, `--http` and the sandbox's `/api/mcp` must list the same tools,
 * resources, resource templates and prompts. Each list must be an answer (not an error), hold the
 * expected entries, and be identical, field for field, from all three: equal errors or equal empty
 * lists would prove nothing. Everything runs from the build: the `sandbox` command is both the
 * upstream service and the third endpoint.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSession, connectCli, type RawProcess, scrubbedEnv, spawnRaw } from './harness.js';
import { type HttpCli, startHttpCli } from './http-support.js';

type Result = Record<string, unknown>;

/**
 * Each list method, what names its entries, and the names expected. The client checks each answer
 * against the method's result schema itself (v2 resolves it from the method name).
 */
const LISTS = [
  {
    method: 'tools/list',
    keys: (result: Result) => (result.tools as { name: string }[]).map((tool) => tool.name),
    names: ['list_model_changes', 'get_model', 'search_models'],
  },
  {
    method: 'resources/list',
    keys: (result: Result) => (result.resources as { uri: string }[]).map((resource) => resource.uri),
    names: ['model-feed://changes'],
  },
  {
    method: 'resources/templates/list',
    keys: (result: Result) =>
      (result.resourceTemplates as { uriTemplate: string }[]).map((template) => template.uriTemplate),
    names: ['model-feed://models/{id}'],
  },
  {
    method: 'prompts/list',
    keys: (result: Result) => (result.prompts as { name: string }[]).map((prompt) => prompt.name),
    names: ['whats_new', 'compare_models', 'plan_migration'],
  },
] as const;

const ENDPOINTS = ['stdio', '--http', 'sandbox /api/mcp'] as const;

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
  it.each(LISTS)('$method: the expected entries, identical from all three', async (list) => {
    // A list method one endpoint lacks rejects here, and fails the test.
    const answers = await Promise.all(
      ENDPOINTS.map((name) => (clients[name] as Client).request({ method: list.method })),
    );
    for (const answer of answers) expect(list.keys(answer)).toEqual(list.names);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});
