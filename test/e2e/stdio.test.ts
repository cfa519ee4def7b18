import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { startFaultServer } from '../support/fault-server.js';
import {
  connectCli,
  INITIALIZE,
  INITIALIZED,
  resultText,
  scrubbedEnv,
  spawnRaw,
  toolCall,
} from './harness.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());

/** The whole feed as the REST API has it, oldest first, read directly. */
async function allEventIds(): Promise<string[]> {
  const ids: string[] = [];
  let since = 0;
  for (let page = 0; page < 100; page++) {
    const res = await fetch(`${sandbox.url}/api/v1/changes?since=${since}&limit=100`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    const body = (await res.json()) as { items: { id: string }[]; latest: number | null };
    if (body.latest === null) return ids;
    ids.push(...body.items.map((i) => i.id));
    since = body.latest;
  }
  throw new Error('feed did not end');
}

describe('the CLI over stdio, with the SDK client, against the sandbox', () => {
  it('lists exactly three read-only tools with output schemas, and says its version', async () => {
    const session = await connectCli(env);
    try {
      expect(session.client.getServerVersion()).toMatchObject({
        name: 'model-feed-mcp',
        version: pkg.version,
      });
      expect(session.client.getInstructions()).toContain('since=<latest>');
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['get_model', 'list_model_changes', 'search_models']);
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({
          readOnlyHint: true,
          idempotentHint: true,
          openWorldHint: true,
        });
        expect(tool.outputSchema).toBeDefined();
      }
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('list_model_changes forwards its arguments unchanged, and polling with latest sees every event', async () => {
    const session = await connectCli(env);
    try {
      sandbox.clearRequests();
      const first = await session.call('list_model_changes', {
        since: 0,
        type: 'price_change',
        model: 'openai',
        limit: 2,
      });
      expect(first.isError).toBeFalsy();
      const request = sandbox.requests.at(-1)!;
      expect(request.path).toBe('/api/v1/changes');
      expect(request.query).toEqual({ since: '0', type: 'price_change', model: 'openai', limit: '2' });
      expect(request.headers.authorization).toBe(`Bearer ${sandbox.key}`);
      // One version everywhere: the User-Agent carries package.json's.
      expect(request.headers['user-agent']).toMatch(
        new RegExp(`^model-feed-mcp/${pkg.version.replaceAll('.', '\\.')} \\(node `),
      );

      const seen: string[] = [];
      let since = 0;
      for (let i = 0; i < 200; i++) {
        const result = await session.call('list_model_changes', { since, limit: 3 });
        const page = result.structuredContent as { items: { id: string }[]; latest: number | null };
        if (page.latest === null) break;
        seen.push(...page.items.map((item) => item.id));
        expect(resultText(result)).toContain(`call again with since=${page.latest}`);
        since = page.latest;
      }
      const expected = await allEventIds();
      expect(expected.length).toBeGreaterThanOrEqual(53);
      expect(seen).toEqual(expected);
    } finally {
      await session.close();
    }
  });

  it('get_model by catalog id and by Hugging Face id, and not_listed for an unknown id', async () => {
    const session = await connectCli(env);
    try {
      const byId = await session.call('get_model', { id: 'OpenAI/GPT-4o' });
      expect(byId.structuredContent).toMatchObject({
        catalogStatus: 'listed',
        matchedBy: 'id',
        model: { id: 'openai/gpt-4o' },
      });
      expect(
        (byId.structuredContent as { priceHistory: { points: unknown[] } }).priceHistory.points.length,
      ).toBeGreaterThan(0);
      expect(sandbox.requests.at(-1)!.path).toBe('/api/v1/models/openai_gpt-4o/history');

      const byHf = await session.call('get_model', { id: 'deepseek-ai/DeepSeek-R1' });
      expect(byHf.structuredContent).toMatchObject({
        catalogStatus: 'listed',
        matchedBy: 'huggingfaceId',
        model: { id: 'deepseek/deepseek-r1' },
      });

      const unknown = await session.call('get_model', { id: 'openai/gpt-4z' });
      expect(unknown.isError).toBeFalsy();
      expect(unknown.structuredContent).toMatchObject({ catalogStatus: 'not_listed', model: null });
      expect(resultText(unknown)).toContain('Close ids: openai/gpt-4');
    } finally {
      await session.close();
    }
  });

  it('search_models keeps the service order, applies limit and reports the service total', async () => {
    const session = await connectCli(env);
    try {
      const direct = (await (
        await fetch(`${sandbox.url}/api/v1/models?maxInputPrice=1`, {
          headers: { authorization: `Bearer ${sandbox.key}` },
        })
      ).json()) as { items: { id: string }[]; total: number };
      sandbox.clearRequests();
      const result = await session.call('search_models', { maxInputPrice: 1, limit: 3 });
      expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([
        ['/api/v1/models', { maxInputPrice: '1' }],
      ]);
      const page = result.structuredContent as { items: { id: string }[]; total: number };
      expect(page.total).toBe(direct.total);
      expect(direct.total).toBeGreaterThan(3);
      expect(page.items.map((m) => m.id)).toEqual(direct.items.slice(0, 3).map((m) => m.id));
    } finally {
      await session.close();
    }
  });
});

describe('errors a user sees, end to end', () => {
  it('a rejected key: says so, with the service text and what to do', async () => {
    const session = await connectCli({ ...env, MODEL_FEED_API_KEY: 'mfsk_wrong_key_000000' });
    try {
      const result = await session.call('search_models', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /rejected the API key \(HTTP 401\).*account screen.*MODEL_FEED_API_KEY/,
      );
      expect(session.stderr()).not.toContain('mfsk_wrong_key_000000');
    } finally {
      await session.close();
    }
  });

  it('no key and no base URL: the tools are still listed, each call names what to set', async () => {
    const session = await connectCli(scrubbedEnv());
    try {
      expect((await session.client.listTools()).tools).toHaveLength(3);
      const result = await session.call('list_model_changes', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('MODEL_FEED_BASE_URL');
      expect(session.stderr()).toContain('MODEL_FEED_BASE_URL');
    } finally {
      await session.close();
    }
  });

  it('an unreachable service: names host, code and attempts', async () => {
    const closed = await startSandbox();
    const url = closed.url;
    await closed.close();
    const session = await connectCli({ ...env, MODEL_FEED_BASE_URL: url, MODEL_FEED_TIMEOUT_MS: '3000' });
    try {
      const result = await session.call('list_model_changes', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /Could not reach 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\), after 3 attempts/,
      );
    } finally {
      await session.close();
    }
  });

  it('a 429: tier, limit and retry time, as seconds and as a time', async () => {
    const limited = await startSandbox();
    try {
      // Spend the free tier's 1,000 daily calls directly, then ask through the CLI.
      for (let i = 0; i < 1000; i++) {
        await fetch(`${limited.url}/api/v1/models`, {
          headers: { authorization: `Bearer ${limited.key}` },
        }).then((r) => r.arrayBuffer());
      }
      const session = await connectCli(
        scrubbedEnv({ MODEL_FEED_API_KEY: limited.key, MODEL_FEED_BASE_URL: limited.url }),
      );
      try {
        const result = await session.call('list_model_changes', {});
        expect(result.isError).toBe(true);
        const match =
          /Daily limit reached for the free tier \(1000 calls per day\)\. Retry in (\d+) s, at (\S+Z)\./.exec(
            resultText(result),
          );
        expect(match, resultText(result)).not.toBeNull();
        // The daily count resets at 00:00 UTC; retry-after has whole-second precision.
        const midnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000;
        expect(Math.abs(Date.parse(match![2]!) - midnight)).toBeLessThanOrEqual(2000);
        expect(Math.abs(Number(match![1]) * 1000 - (midnight - Date.now()))).toBeLessThanOrEqual(5000);
      } finally {
        await session.close();
      }
    } finally {
      await limited.close();
    }
  });
});

describe('the process', () => {
  it('puts nothing but JSON-RPC on stdout and the key nowhere, even at debug level', async () => {
    const raw = spawnRaw(env, ['--log-level', 'debug']);
    raw.send(INITIALIZE);
    raw.send(INITIALIZED);
    raw.send('not json at all');
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    raw.send(toolCall(2, 'get_model', { id: 'openai/gpt-4o' }));
    raw.send(toolCall(3, 'list_model_changes', { limit: 500 }));
    raw.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'no/such/method' }));
    await raw.answer(2);
    expect((await raw.answer(3)).result).toMatchObject({ isError: true });
    expect((await raw.answer(4)).error).toMatchObject({ code: -32601 });
    raw.child.stdin.end();
    await raw.exited;
    const lines = raw.stdout().split('\n');
    expect(lines.at(-1)).toBe('');
    for (const line of lines.slice(0, -1)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.some((l) => l.includes('"code":-32700'))).toBe(true);
    expect(raw.stderr()).toContain('debug');
    expect(raw.stdout()).not.toContain(sandbox.key);
    expect(raw.stderr()).not.toContain(sandbox.key);
  });

  it('exits when stdin closes, not held by an idle keep-alive connection', async () => {
    const raw = spawnRaw(env);
    raw.send(INITIALIZE);
    raw.send(INITIALIZED);
    raw.send(toolCall(1, 'search_models', {}));
    await raw.answer(1);
    const closedAt = performance.now();
    raw.child.stdin.end();
    const { code, at } = await raw.exited;
    expect(code).toBe(0);
    // An idle keep-alive connection would hold the process for the server's 5 s.
    expect(at - closedAt).toBeLessThan(4000);
  });

  it('exits when stdin closes while a call is still waiting on the service, not at its timeout', async () => {
    const hung = await startFaultServer(() => new Promise(() => {}));
    try {
      const raw = spawnRaw({ ...env, MODEL_FEED_BASE_URL: hung.url });
      raw.send(INITIALIZE);
      raw.send(INITIALIZED);
      raw.send(toolCall(1, 'search_models', {}));
      await raw.answer(0);
      for (let i = 0; i < 500 && hung.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(hung.requests).toHaveLength(1);
      const closedAt = performance.now();
      raw.child.stdin.end();
      const { at } = await raw.exited;
      // The call would end at its 15 s timeout.
      expect(at - closedAt).toBeLessThan(10_000);
    } finally {
      await hung.close();
    }
  });

  it('answers what it was asked before stdin closed, a last line without a newline included', async () => {
    const raw = spawnRaw(env);
    // Everything at once, then the end of input: a script piping requests into the server does this.
    raw.child.stdin.end(
      `${INITIALIZE}\n${INITIALIZED}\n` +
        `${toolCall(1, 'search_models', { limit: 1 })}\n` +
        toolCall(2, 'get_model', { id: 'openai/gpt-4o' }),
    );
    const { code } = await raw.exited;
    expect(code).toBe(0);
    const answers = raw
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: { isError?: boolean } });
    expect(answers.map((a) => a.id).sort()).toEqual([0, 1, 2]);
    expect(answers.every((a) => a.result && !a.result.isError)).toBe(true);
  });

  it('exits promptly on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const raw = spawnRaw(env);
      raw.send(INITIALIZE);
      await raw.answer(0);
      const sentAt = performance.now();
      raw.child.kill(signal);
      const { code, at } = await raw.exited;
      expect(code).toBe(0);
      // A bound on a hang: an idle server has nothing to wait for.
      expect(at - sentAt).toBeLessThan(10_000);
    }
  });
});
