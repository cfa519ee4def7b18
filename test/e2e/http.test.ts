/**
 * `model-feed-mcp --http`: the built CLI on a loopback port, driven by the SDK's own Streamable
 * HTTP client and by raw requests, against a sandbox in this process that records what the CLI
 * asks upstream.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { INITIALIZE_PARAMS, MCP_HEADERS, rawRequest, rpc } from '../http/raw-request.js';
import { run, scrubbedEnv, spawnRaw } from './harness.js';
import { type HttpCli, startHttpCli } from './http-support.js';

let sandbox: Sandbox;
let cli: HttpCli;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
  cli = await startHttpCli(env);
});
afterAll(async () => {
  if (cli.raw.child.exitCode === null) await cli.stop();
  await sandbox.close();
});

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'e2e-http', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe('model-feed-mcp --http', () => {
  it('prints its loopback URL on stderr and nothing on stdout', () => {
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
    expect(cli.raw.stderr()).not.toContain(sandbox.key);
    expect(cli.raw.stdout()).toBe('');
  });

  it('serves a real SDK client: a tool call reaches the service with the key, stdout stays silent', async () => {
    const client = await connect(cli.url, sandbox.key);
    try {
      sandbox.clearRequests();
      const result = await client.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4o' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        catalogStatus: 'listed',
        model: { id: 'openai/gpt-4o' },
      });
      const paths = sandbox.requests.map((request) => `${request.method} ${request.path}`);
      expect(paths).toEqual(['GET /api/v1/models', 'GET /api/v1/models/openai_gpt-4o/history']);
      expect(sandbox.requests[0]?.headers.authorization).toBe(`Bearer ${sandbox.key}`);
    } finally {
      await client.close();
    }
    expect(cli.raw.stdout()).toBe('');
  });

  it('403 for Host evil.example and for a foreign Origin; 401 without the key or with a wrong one', async () => {
    const body = rpc(1, 'initialize', INITIALIZE_PARAMS);
    const withKey = { ...MCP_HEADERS, authorization: `Bearer ${sandbox.key}` };
    const evilHost = await rawRequest(cli.url, { headers: { ...withKey, host: 'evil.example' }, body });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body).error).toMatch(/^Forbidden: Host "evil\.example"/);
    const evilOrigin = await rawRequest(cli.url, {
      headers: { ...withKey, origin: 'http://evil.example' },
      body,
    });
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body).error).toMatch(/^Forbidden: Origin "http:\/\/evil\.example"/);
    const noKey = await rawRequest(cli.url, { headers: { ...MCP_HEADERS }, body });
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body).error).toBe(
      'Missing Authorization header: send "Authorization: Bearer <key>" with the value of MODEL_FEED_API_KEY this server was started with.',
    );
    const wrongKey = await rawRequest(cli.url, {
      headers: { ...MCP_HEADERS, authorization: 'Bearer mfsk_wrong' },
      body,
    });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body).not.toContain(sandbox.key);
  });

  // A server that waited for the open stream to end would never exit: the test's own bound fails it.
  it('stops on SIGTERM, a session and its stream open, with exit code 0', async () => {
    const own = await startHttpCli(env);
    const client = await connect(own.url, sandbox.key);
    await client.listTools();
    const { code } = await own.stop('SIGTERM');
    expect(code).toBe(0);
    expect(own.raw.stdout()).toBe('');
    await client.close().catch(() => {});
  });

  it('stops on SIGINT too', async () => {
    const own = await startHttpCli(env);
    const { code } = await own.stop('SIGINT');
    expect(code).toBe(0);
  });

  it('refuses to start without a key: the usual message, exit 2', async () => {
    const out = await run(['--http', '127.0.0.1:0'], scrubbedEnv({ MODEL_FEED_BASE_URL: sandbox.url }));
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(
      /^model-feed-mcp: No API key: set MODEL_FEED_API_KEY in the MCP client's "env"/,
    );
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a bad address or a port in use with one line, exit 2', async () => {
    const bad = await run(['--http', 'localhost'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^model-feed-mcp: --http must be \[host:\]port/);
    const port = new URL(cli.url).port;
    const taken = await run(['--http', `127.0.0.1:${port}`], env);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toBe(
      `model-feed-mcp: --http: port ${port} on 127.0.0.1 is in use; choose another, or 0 for a free one.\n`,
    );
  });

  it('warns on stderr when bound beyond loopback', async () => {
    const wide = await startHttpCli(env, [], '0.0.0.0:0');
    try {
      expect(wide.raw.stderr()).toContain(
        'warning: --http binds 0.0.0.0, not loopback: anyone who can reach port',
      );
      expect(wide.raw.stderr()).toContain("and holds the key can spend this key's daily quota");
      expect(wide.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
    } finally {
      await wide.stop();
    }
  });

  it('--host names the interface, with the same warning; a host in --http too must be the same one', async () => {
    const wide = await startHttpCli(env, ['--host', '0.0.0.0'], '0');
    try {
      expect(wide.raw.stderr()).toContain(
        'warning: --http binds 0.0.0.0, not loopback: anyone who can reach port',
      );
      const client = await connect(wide.url, sandbox.key);
      expect((await client.listTools()).tools).toHaveLength(3);
      await client.close();
    } finally {
      await wide.stop();
    }
    const loopback = await startHttpCli(env, ['--host', 'localhost'], 'localhost:0');
    try {
      expect(loopback.raw.stderr()).not.toContain('warning');
    } finally {
      await loopback.stop();
    }
    const clash = await run(['--http', '127.0.0.1:0', '--host', '0.0.0.0'], env);
    expect(clash.code).toBe(2);
    expect(clash.stdout).toBe('');
    expect(clash.stderr).toBe(
      'model-feed-mcp: --http 127.0.0.1:0 and --host 0.0.0.0 name different hosts; name the host once, in either.\n',
    );
    const alone = await run(['--host', '0.0.0.0'], env);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^model-feed-mcp: --host applies only with --http/);
    // A port written after an IPv6 address is part of the address: the message says where it goes.
    const glued = await run(['--http', '0', '--host', '::1:8080'], env);
    expect(glued.code).toBe(2);
    expect(glued.stderr).toBe(
      'model-feed-mcp: --http: ::1:8080 is not an address of this machine (an IPv6 address takes no port after it: the port goes in --http, as in --http 8080 --host ::1); leave the host out of --http and --host to bind 127.0.0.1.\n',
    );
    // Commands that open no port refuse them, where they used to ignore them without a word;
    // before the command's name too, where the program reads them.
    for (const [args, name, command, owners] of [
      [
        ['call', 'get_model', '--sandbox', '--id', 'openai/gpt-4o', '--host', '0.0.0.0'],
        'host',
        'call get_model',
        'the server (model-feed-mcp) and sandbox',
      ],
      [['doctor', '--http', '8765'], 'http', 'doctor', 'the server (model-feed-mcp)'],
      [['--http', '8765', 'doctor'], 'http', 'doctor', 'the server (model-feed-mcp)'],
      [
        ['watch', '--once', '--sandbox', '--host', '0.0.0.0'],
        'host',
        'watch',
        'the server (model-feed-mcp) and sandbox',
      ],
    ] as const) {
      const refused = await run([...args], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr.split('\n')[0]).toBe(
        `error: unknown option '--${name}' for ${command}: --${name} is an option of ${owners}.`,
      );
    }
    const help = await run(['--help'], env);
    expect(help.stdout).toMatch(/--host <address>\s+with --http: the interface to bind/);
  });

  it('--sandbox: a generated key, printed once on stderr, or MODEL_FEED_API_KEY, never printed', async () => {
    const generated = await startHttpCli(scrubbedEnv(), ['--sandbox']);
    try {
      const key = /key (mfsk_local_[0-9a-f]{32}) /.exec(generated.raw.stderr())?.[1] ?? '';
      expect(key).not.toBe('');
      const client = await connect(generated.url, key);
      const result = await client.callTool({ name: 'search_models', arguments: { limit: 1 } });
      expect(result.isError).toBeFalsy();
      expect(result._meta).toMatchObject({ 'modelFeed/sampleData': true });
      await client.close();
    } finally {
      await generated.stop();
    }
    const chosen = 'mfsk_chosen_for_http_123456';
    const own = await startHttpCli(scrubbedEnv({ MODEL_FEED_API_KEY: chosen }), ['--sandbox']);
    try {
      expect(own.raw.stderr()).not.toContain(chosen);
      expect(own.raw.stderr()).not.toContain('generated');
      const client = await connect(own.url, chosen);
      expect((await client.listTools()).tools).toHaveLength(3);
      await client.close();
    } finally {
      await own.stop();
    }
  });
});

describe('model-feed-mcp sandbox: /api/mcp', () => {
  it('403 for a foreign Host', async () => {
    const raw = spawnRaw(scrubbedEnv(), ['sandbox', '--port', '0']);
    try {
      const deadline = performance.now() + 10_000;
      while (!/Press Ctrl\+C/.test(raw.stdout())) {
        if (performance.now() > deadline) throw new Error(`sandbox did not start: ${raw.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const url = /base URL\s+(\S+)/.exec(raw.stdout())?.[1] ?? '';
      const key = /API key\s+(mfsk_\S+)/.exec(raw.stdout())?.[1] ?? '';
      const headers = { ...MCP_HEADERS, authorization: `Bearer ${key}` };
      const body = rpc(1, 'initialize', INITIALIZE_PARAMS);
      const evil = await rawRequest(`${url}/api/mcp`, {
        headers: { ...headers, host: 'evil.example' },
        body,
      });
      expect(evil.status).toBe(403);
      const ok = await rawRequest(`${url}/api/mcp`, { headers, body });
      expect(ok.status).toBe(200);
    } finally {
      raw.child.kill('SIGINT');
      await raw.exited;
    }
  });
});
