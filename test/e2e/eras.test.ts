/**
 * Both protocol eras from the built CLI: a 2026-07-28 opening (`server/discover`, or the v2 client
 * with `versionNegotiation: 'auto'`) beside the 2025 `initialize`, over stdio, `--http` and the
 * sandbox's `/api/mcp`, against a pro-tier sandbox in this process that records what reaches it.
 * The tools answer alike in both; 2026 results carry `resultType`, `serverInfo` and truthful cache
 * hints; `subscriptions/listen` hears of a change and stops the polling when it ends.
 */

import { Client, ResourceNotFoundError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/settings-table.js';
import { serveMcpEndpoint } from '../../src/sandbox/mcp-endpoint.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { BIN, eventually, NODE, type RawProcess, request, scrubbedEnv, spawnRaw } from './harness.js';
import { type HttpCli, startHttpCli } from './http-support.js';

const REVISION = '2026-07-28';
/** Every revision the server speaks: the enveloped one, then those initialize negotiates. */
const SERVED = [REVISION, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const CHANGES = 'model-feed://changes';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'e2e-raw', version: '1' },
};
/** A request line in the 2026 envelope, or naming `revision` instead. */
const enveloped = (id: number, method: string, params: Record<string, unknown> = {}, revision = REVISION) =>
  request(id, method, {
    ...params,
    _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': revision },
  });

const CALLS = [
  { name: 'list_model_changes', arguments: { limit: 3 } },
  { name: 'get_model', arguments: { id: 'openai/gpt-4o' } },
  { name: 'search_models', arguments: { vendor: 'openai', limit: 2 } },
];

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro', mcp: serveMcpEndpoint });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const feedRequests = () => sandbox.requests.filter((r) => r.path === '/api/v1/changes').length;

/** No feed request goes out for 2.5 s (2.5 polls at --watch-interval 1), once one in flight has landed. */
async function expectPollingStopped(): Promise<void> {
  await pause(300);
  const after = feedRequests();
  await pause(2500);
  expect(feedRequests()).toBe(after);
}

type Negotiation = 'auto' | 'legacy';

function newClient(mode: Negotiation): Client {
  return new Client({ name: 'e2e-eras', version: '1' }, { versionNegotiation: { mode } });
}

async function stdioClient(mode: Negotiation, args: string[] = []): Promise<Client> {
  const client = newClient(mode);
  await client.connect(
    new StdioClientTransport({ command: NODE, args: [BIN, ...args], env, stderr: 'pipe' }),
  );
  return client;
}

async function httpClient(mode: Negotiation, url: string): Promise<Client> {
  const client = newClient(mode);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${sandbox.key}` } },
  });
  await client.connect(transport);
  return client;
}

/** What a user of each tool gets: its structured content and its text, per call. */
async function answers(client: Client) {
  const out = [];
  for (const call of CALLS) {
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    out.push({ structured: result.structuredContent, content: result.content });
  }
  return out;
}

describe('a 2026-07-28 opening on stdio (raw lines)', () => {
  let raw: RawProcess;
  beforeAll(() => {
    raw = spawnRaw(env);
  });
  afterAll(() => {
    raw.child.stdin.end();
    return raw.exited;
  });

  it('server/discover first: 2026-07-28 among the versions, resultType, serverInfo, a public hint', async () => {
    raw.send(enveloped(1, 'server/discover'));
    const discover = (await raw.answer(1)).result as Record<string, unknown>;
    expect(discover.supportedVersions).toContain(REVISION);
    expect(discover.resultType).toBe('complete');
    expect(discover._meta).toMatchObject({
      'io.modelcontextprotocol/serverInfo': { name: 'model-feed-mcp' },
    });
    expect(discover).toMatchObject({ cacheScope: 'public' });
    expect(discover.ttlMs).toBeGreaterThan(0);
  });

  it('lists are public and fresh for a while; a read is private', async () => {
    for (const [id, method] of [
      [2, 'tools/list'],
      [3, 'prompts/list'],
      [4, 'resources/list'],
      [5, 'resources/templates/list'],
    ] as const) {
      raw.send(enveloped(id, method));
      const result = (await raw.answer(id)).result as Record<string, unknown>;
      expect(result, method).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
      expect(result.ttlMs, method).toBeGreaterThan(0);
    }
    raw.send(enveloped(6, 'resources/read', { uri: 'model-feed://models/openai%2Fgpt-4o' }));
    const model = (await raw.answer(6)).result as Record<string, unknown>;
    expect(model.cacheScope).toBe('private');
    // The cache hint's rule, not a speed: a read stays fresh for what is left of the answer it was
    // read from, never more than the cache lifetime setting's default. How much is left depends on
    // the machine, so only that rule is held.
    expect(model.ttlMs).toBeGreaterThan(0);
    expect(model.ttlMs).toBeLessThanOrEqual(DEFAULTS.cacheTtlS * 1000);
    raw.send(enveloped(7, 'resources/read', { uri: CHANGES }));
    const changes = (await raw.answer(7)).result as Record<string, unknown>;
    expect(changes.cacheScope).toBe('private');
    // Until the next poll could see something new: the pro tier's interval (feed/schedule.ts).
    expect(changes.ttlMs).toBe(4000);
  });

  it('a request naming an unknown revision gets -32022 naming the supported ones, also once pinned', async () => {
    raw.send(enveloped(8, 'tools/list', {}, '2099-01-01'));
    const refused = (await raw.answer(8)).error as { code: number; data: { supported: string[] } };
    expect(refused.code).toBe(-32022);
    expect(refused.data.supported).toEqual(SERVED);
  });

  it('an unknown resource is -32602, as 2026-07-28 says', async () => {
    raw.send(enveloped(9, 'resources/read', { uri: 'model-feed://nothing' }));
    expect(((await raw.answer(9)).error as { code: number }).code).toBe(-32602);
  });
});

/** A raw CLI for one test: `use` runs with it, and it is ended and waited for whatever happens. */
async function withRaw(args: string[], use: (raw: RawProcess) => Promise<void>, environment = env) {
  const raw = spawnRaw(environment, args);
  try {
    await use(raw);
  } finally {
    raw.child.stdin.end();
    await raw.exited;
  }
}

const INITIALIZE_2025 = request(1, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'e2e-raw', version: '1' },
});

it('an unknown revision on a first message is refused with every revision served; discover names the enveloped ones', () =>
  withRaw([], async (raw) => {
    raw.send(enveloped(1, 'tools/list', {}, '2099-01-01'));
    const refused = (await raw.answer(1)).error as {
      code: number;
      message: string;
      data: { supported: string[] };
    };
    expect(refused.data.supported).toEqual(SERVED);
    expect(refused.message).toContain('after initialize');
    raw.send(enveloped(2, 'server/discover'));
    const discover = (await raw.answer(2)).result as { supportedVersions: string[] };
    expect(SERVED.slice(0, discover.supportedVersions.length)).toEqual(discover.supportedVersions);
  }));

it('a revision that is not even a string costs its own line only, not the lines sent with it', () =>
  withRaw([], async (raw) => {
    raw.send(enveloped(1, 'server/discover'));
    await raw.answer(1);
    const hostile = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: {
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': { toString: 1, valueOf: 1 } },
      },
    });
    raw.child.stdin.write(`${hostile}\n${enveloped(3, 'tools/list')}\n`);
    expect(((await raw.answer(2)).error as { code: number }).code).toBe(-32022);
    expect((await raw.answer(3)).result).toMatchObject({ resultType: 'complete' });
  }));

it('the cache off: a model read and the changes are fresh for 0 ms', () =>
  withRaw(['--cache-ttl', '0'], async (raw) => {
    raw.send(enveloped(1, 'resources/read', { uri: 'model-feed://models/openai%2Fgpt-4o' }));
    expect((await raw.answer(1)).result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    raw.send(enveloped(2, 'resources/read', { uri: CHANGES }));
    expect((await raw.answer(2)).result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  }));

it('an unknown resource is -32002 in a 2025 session, as 2025-11-25 says, with its uri', () =>
  withRaw([], async (raw) => {
    raw.send(INITIALIZE_2025);
    await raw.answer(1);
    const unknownId = 'model-feed://models/openai%2Fgpt-4';
    raw.send(request(2, 'resources/read', { uri: 'model-feed://nothing' }));
    raw.send(request(3, 'resources/read', { uri: unknownId }));
    expect((await raw.answer(2)).error).toMatchObject({
      code: -32002,
      data: { uri: 'model-feed://nothing' },
    });
    expect((await raw.answer(3)).error).toMatchObject({ code: -32002, data: { uri: unknownId } });
    // Other refusals keep their codes: a subscription to what never changes is invalid params.
    raw.send(request(4, 'resources/subscribe', { uri: unknownId }));
    expect(((await raw.answer(4)).error as { code: number }).code).toBe(-32602);
  }));

describe('an unknown resource: -32002 in 2025, -32602 in 2026, and real clients know it either way', () => {
  /** What the client raised for a read of `uri`. */
  const refusal = async (client: Client, uri: string) => {
    try {
      await client.readResource({ uri });
    } catch (error) {
      return error;
    }
    throw new Error(`${uri} was read`);
  };

  it('stdio: the v2 client sees a ResourceNotFoundError with the uri in both eras', async () => {
    const modern = await stdioClient('auto');
    const legacy = await stdioClient('legacy');
    const uri = 'model-feed://models/openai%2Fgpt-4';
    try {
      for (const client of [legacy, modern]) {
        const error = await refusal(client, uri);
        expect(error).toBeInstanceOf(ResourceNotFoundError);
        expect((error as ResourceNotFoundError).uri).toBe(uri);
      }
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  it('--http: -32002 in a session and without one, -32602 for a 2026 request; real clients in both eras', async () => {
    const cli = await startHttpCli(env);
    const modern = await httpClient('auto', cli.url);
    const legacy = await httpClient('legacy', cli.url);
    const uri = 'model-feed://nothing';
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(cli.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      return {
        session: response.headers.get('mcp-session-id'),
        answer: (await response.json()) as Record<string, unknown>,
      };
    };
    try {
      for (const client of [legacy, modern])
        expect(await refusal(client, uri)).toBeInstanceOf(ResourceNotFoundError);
      expect((await post(request(1, 'resources/read', { uri }))).answer.error).toMatchObject({
        code: -32002,
        data: { uri },
      });
      const { session } = await post(INITIALIZE_2025);
      const inSession = await post(request(2, 'resources/read', { uri }), {
        'mcp-session-id': session as string,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(inSession.answer.error).toMatchObject({ code: -32002, data: { uri } });
      const modernAnswer = await post(enveloped(3, 'resources/read', { uri }), {
        'mcp-protocol-version': REVISION,
        'mcp-method': 'resources/read',
        'mcp-name': uri,
      });
      expect(modernAnswer.answer.error).toMatchObject({ code: -32602, data: { uri } });
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
      await cli.stop();
    }
  });
});

it('a 2025 session gets no cache hints, even for a request with a reserved _meta key', () =>
  withRaw([], async (raw) => {
    raw.send(INITIALIZE_2025);
    await raw.answer(1);
    raw.send(
      request(2, 'resources/read', {
        uri: 'model-feed://models/openai%2Fgpt-4o',
        _meta: { 'io.modelcontextprotocol/logLevel': 'info' },
      }),
    );
    raw.send(request(3, 'tools/list'));
    for (const id of [2, 3]) {
      const result = (await raw.answer(id)).result as Record<string, unknown>;
      expect(result).toBeDefined();
      expect(Object.keys(result)).not.toContain('ttlMs');
      expect(Object.keys(result)).not.toContain('cacheScope');
    }
  }));

it('a listen the SDK refuses (a 2025 session) starts no polling', () =>
  withRaw(['--watch-interval', '1'], async (raw) => {
    raw.send(INITIALIZE_2025);
    await raw.answer(1);
    sandbox.clearRequests();
    raw.send(request(2, 'subscriptions/listen', { notifications: { resourceSubscriptions: [CHANGES] } }));
    expect(((await raw.answer(2)).error as { code: number }).code).toBe(-32601);
    await pause(2500);
    expect(feedRequests()).toBe(0);
  }));

it('a listen whose polling cannot work (a rejected key) is ended with the reason', () =>
  withRaw(
    [],
    async (raw) => {
      raw.send(enveloped(1, 'subscriptions/listen', { notifications: { resourceSubscriptions: [CHANGES] } }));
      const ended = (await raw.answer(1)).error as { code: number; message: string };
      expect(ended.code).toBe(-32603);
      expect(ended.message).toMatch(/key/i);
      expect(raw.stdout()).not.toContain('mfsk_rejected');
    },
    scrubbedEnv({ MODEL_FEED_API_KEY: 'mfsk_rejected_0123456789abcdef', MODEL_FEED_BASE_URL: sandbox.url }),
  ));

describe('the v2 client, versionNegotiation auto and legacy, same answers', () => {
  it('stdio: auto negotiates 2026-07-28 and gets what legacy gets', async () => {
    const modern = await stdioClient('auto');
    const legacy = await stdioClient('legacy');
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe(REVISION);
      expect(modern.getProtocolEra()).toBe('modern');
      expect(legacy.getProtocolEra()).toBe('legacy');
      expect((await modern.listTools()).tools).toEqual((await legacy.listTools()).tools);
      expect(await answers(modern)).toEqual(await answers(legacy));
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  it('--http and the sandbox /api/mcp: auto negotiates 2026-07-28, with the same answers as stdio', async () => {
    const cli = await startHttpCli(env);
    const clients = [
      await httpClient('auto', cli.url),
      await httpClient('legacy', cli.url),
      await httpClient('auto', `${sandbox.url}/api/mcp`),
      await httpClient('legacy', `${sandbox.url}/api/mcp`),
    ];
    const stdio = await stdioClient('legacy');
    try {
      expect(clients.map((client) => client.getProtocolEra())).toEqual([
        'modern',
        'legacy',
        'modern',
        'legacy',
      ]);
      const expected = await answers(stdio);
      for (const client of clients) expect(await answers(client)).toEqual(expected);
    } finally {
      await Promise.all([...clients.map((client) => client.close()), stdio.close()]);
      await cli.stop();
    }
  });
});

describe('subscriptions/listen on model-feed://changes', () => {
  it('stdio: acknowledges exactly what is honoured, hears a change with its subscription id, stops polling on cancel', async () => {
    const client = await stdioClient('auto', ['--watch-interval', '1']);
    const updates: Record<string, unknown>[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params as Record<string, unknown>);
    });
    try {
      sandbox.clearRequests();
      const subscription = await client.listen({
        resourceSubscriptions: [CHANGES, 'model-feed://models/openai%2Fgpt-4o'],
      });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [CHANGES] });
      await eventually(() => feedRequests() >= 1, 'the first poll');
      sandbox.publish('price_change');
      await eventually(() => updates.length > 0, 'an update within the poll interval', 3000);
      expect(updates[0]).toMatchObject({ uri: CHANGES });
      expect(Object.keys((updates[0]?._meta ?? {}) as object)).toContain(
        'io.modelcontextprotocol/subscriptionId',
      );

      await subscription.close();
      await expectPollingStopped();
    } finally {
      await client.close();
    }
  });

  it('stdio: a listen for nothing this server changes is acknowledged empty and polls nothing', async () => {
    const client = await stdioClient('auto', ['--watch-interval', '1']);
    try {
      sandbox.clearRequests();
      const subscription = await client.listen({ resourceSubscriptions: ['model-feed://models/x'] });
      expect(subscription.honoredFilter).toEqual({});
      await pause(1500);
      expect(feedRequests()).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('--http: hears a change over its SSE stream; closing the stream stops the polling', async () => {
    const cli: HttpCli = await startHttpCli(env, ['--watch-interval', '1']);
    const client = await httpClient('auto', cli.url);
    const updates: unknown[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params);
    });
    try {
      sandbox.clearRequests();
      const subscription = await client.listen({ resourceSubscriptions: [CHANGES] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [CHANGES] });
      await eventually(() => feedRequests() >= 1, 'the first poll');
      sandbox.publish('new_model');
      await eventually(() => updates.length > 0, 'an update within the poll interval', 3000);
      await subscription.close();
      await expectPollingStopped();
    } finally {
      await client.close();
      await cli.stop();
    }
  });
});

describe('--http 2026 requests', () => {
  it('a listen whose polling cannot work (a rejected key) is refused with the reason, not left silent', async () => {
    const rejected = 'mfsk_rejected_0123456789abcdef';
    const cli = await startHttpCli(
      scrubbedEnv({ MODEL_FEED_API_KEY: rejected, MODEL_FEED_BASE_URL: sandbox.url }),
    );
    try {
      const response = await fetch(cli.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rejected}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': REVISION,
          'mcp-method': 'subscriptions/listen',
        },
        body: enveloped(1, 'subscriptions/listen', { notifications: { resourceSubscriptions: [CHANGES] } }),
        signal: AbortSignal.timeout(10_000),
      });
      const answer = (await response.json()) as { id: number; error: { code: number; message: string } };
      expect(answer.id).toBe(1);
      expect(answer.error.code).toBe(-32603);
      expect(answer.error.message).toMatch(/key/i);
      expect(answer.error.message).not.toContain(rejected);
    } finally {
      await cli.stop();
    }
  });

  it('an unknown revision gets 400 and -32022 listing every revision served, 2025-11-25 included', async () => {
    const cli = await startHttpCli(env);
    try {
      for (const revision of ['2099-01-01', '2025-11-25']) {
        const response = await fetch(cli.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${sandbox.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': revision,
            'mcp-method': 'tools/list',
          },
          body: enveloped(1, 'tools/list', {}, revision),
          signal: AbortSignal.timeout(10_000),
        });
        expect(response.status).toBe(400);
        const answer = (await response.json()) as { error: { code: number; data: unknown } };
        expect(answer.error).toMatchObject({
          code: -32022,
          data: { supported: SERVED, requested: revision },
        });
      }
      // A header that disagrees with the body is refused for that first, as the SDK answers it.
      const mismatch = await fetch(cli.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': REVISION,
          'mcp-method': 'tools/list',
        },
        body: enveloped(2, 'tools/list', {}, '2099-01-01'),
        signal: AbortSignal.timeout(10_000),
      });
      expect(mismatch.status).toBe(400);
      expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
    } finally {
      await cli.stop();
    }
  });

  it('a Mcp-Method header that disagrees with the body gets 400; a request without the key 401', async () => {
    const cli = await startHttpCli(env);
    try {
      const post = (headers: Record<string, string>) =>
        fetch(cli.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': REVISION,
            ...headers,
          },
          body: enveloped(1, 'tools/list'),
        });
      const mismatch = await post({ authorization: `Bearer ${sandbox.key}`, 'mcp-method': 'prompts/list' });
      expect(mismatch.status).toBe(400);
      const ok = await post({ authorization: `Bearer ${sandbox.key}`, 'mcp-method': 'tools/list' });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { resultType: string } }).result.resultType).toBe('complete');
      expect((await post({ 'mcp-method': 'tools/list' })).status).toBe(401);
    } finally {
      await cli.stop();
    }
  });
});
