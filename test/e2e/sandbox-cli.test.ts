import { spawnSync } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  connectCli,
  eventually,
  INITIALIZE,
  INITIALIZED,
  NODE,
  resultText,
  run,
  scrubbedEnv,
  spawnRaw,
  toolCall,
} from './harness.js';

/** `model-feed-mcp sandbox`, running until the test stops it; resolves once it printed its address. */
async function startSandboxCli(env = scrubbedEnv(), args: string[] = []) {
  const raw = spawnRaw(env, ['sandbox', '--port', '0', ...args]);
  const deadline = performance.now() + 10_000;
  while (!/Press Ctrl\+C/.test(raw.stdout())) {
    if (performance.now() > deadline) throw new Error(`sandbox did not start: ${raw.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = /base URL\s+(\S+)/.exec(raw.stdout())?.[1] ?? '';
  const key = /API key\s+(mfsk_\S+)/.exec(raw.stdout())?.[1];
  return { raw, url, key };
}

describe('model-feed-mcp sandbox', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxCli>>;
  beforeAll(async () => {
    sandbox = await startSandboxCli();
  });
  afterAll(async () => {
    sandbox.raw.child.kill('SIGINT');
    await sandbox.raw.exited;
  });

  it('prints a loopback base URL and a generated key it accepts', async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.key).toMatch(/^mfsk_sandbox_[0-9a-f]{32}$/);
    const ok = await fetch(`${sandbox.url}/api/v1/models`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-service-tier')).toBe('free');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
    const refused = await fetch(`${sandbox.url}/api/v1/models`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: expect.any(String) });
  });

  it('prints an export line that a shell takes as it is, and call then reaches the sandbox', () => {
    const line = /^ {2}(export MODEL_FEED_BASE_URL=.*)$/m.exec(sandbox.raw.stdout())?.[1] ?? '';
    expect(line).toBe(`export MODEL_FEED_BASE_URL=${sandbox.url} MODEL_FEED_API_KEY=${sandbox.key}`);
    const out = spawnSync('sh', ['-c', `${line}\nexec "$0" "$1" call search_models --limit 1`, NODE, BIN], {
      env: scrubbedEnv(),
      encoding: 'utf8',
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain('1 of ');
  });

  it('serves /api/mcp with exactly the tools the stdio runner lists', async () => {
    const http = new Client({ name: 'e2e-http', version: '1' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`${sandbox.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${sandbox.key}` } },
      }),
    );
    const stdio = await connectCli(
      scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url }),
    );
    try {
      const [remote, local] = await Promise.all([http.listTools(), stdio.client.listTools()]);
      expect(remote.tools.length).toBe(3);
      expect(remote).toEqual(local);
      const viaHttp = await http.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4o' } });
      expect(viaHttp.structuredContent).toMatchObject({
        catalogStatus: 'listed',
        model: { id: 'openai/gpt-4o' },
      });
    } finally {
      await Promise.all([http.close(), stdio.close()]);
    }
  });

  it('answers /api/mcp with 401 for a bad key', async () => {
    const res = await fetch(`${sandbox.url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer wrong',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
  });

  it('accepts MODEL_FEED_API_KEY when set, without printing it', async () => {
    const chosen = 'mfsk_chosen_by_the_user_123456';
    const own = await startSandboxCli(scrubbedEnv({ MODEL_FEED_API_KEY: chosen }));
    try {
      expect(own.raw.stdout()).not.toContain(chosen);
      expect(own.raw.stdout()).toContain('the value of MODEL_FEED_API_KEY');
      expect(own.raw.stdout()).toContain(
        `  export MODEL_FEED_BASE_URL=${own.url}   # plus MODEL_FEED_API_KEY, as set for the sandbox\n`,
      );
      const res = await fetch(`${own.url}/api/v1/changes`, {
        headers: { authorization: `Bearer ${chosen}` },
      });
      expect(res.status).toBe(200);
    } finally {
      own.raw.child.kill('SIGINT');
      const { code } = await own.raw.exited;
      expect(code).toBe(0);
    }
  });

  it('--host binds where it says, before or after --port (the runner has a --host of its own)', async () => {
    for (const args of [
      ['--host', '127.0.0.2', '--port', '0'],
      ['--port', '0', '--host', '127.0.0.2'],
    ]) {
      const raw = spawnRaw(scrubbedEnv(), ['sandbox', ...args]);
      try {
        await eventually(
          () => /Press Ctrl\+C/.test(raw.stdout()) || raw.child.exitCode !== null,
          'the sandbox',
        );
        expect(raw.stderr()).not.toContain('error');
        expect(raw.stdout()).toMatch(/base URL\s+http:\/\/127\.0\.0\.2:\d+/);
      } finally {
        raw.child.kill('SIGINT');
        await raw.exited;
      }
    }
  });

  it('refuses a bad port with one line and exit code 2', async () => {
    const out = await run(['sandbox', '--port', '99999']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain('--port must be a whole number from 0 to 65535');
  });

  it('--live 1 publishes a new change every second: the feed grows for a since-poller', async () => {
    const live = await startSandboxCli(scrubbedEnv(), ['--live', '1']);
    try {
      expect(live.raw.stdout()).toContain('Publishing a new change every 1 s.');
      const headers = { authorization: `Bearer ${live.key}` };
      const first = (await (await fetch(`${live.url}/api/v1/changes?limit=1`, { headers })).json()) as {
        latest: number;
      };
      const arrived: { id: string; title: string }[] = [];
      let since = first.latest;
      // Bounded: two publications take about 2 s; 15 s covers a slow machine.
      const deadline = performance.now() + 15_000;
      while (arrived.length < 2 && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        const res = await fetch(`${live.url}/api/v1/changes?since=${since}`, { headers });
        expect(res.status).toBe(200);
        const page = (await res.json()) as { items: { id: string; title: string }[]; latest: number | null };
        arrived.push(...page.items);
        since = page.latest ?? since;
      }
      expect(arrived.length).toBeGreaterThanOrEqual(2);
      const [firstArrived] = arrived;
      expect(live.raw.stderr()).toMatch(/^sandbox info: published (price_change|verification|new_model) /m);
      expect(live.raw.stderr()).toContain(`${firstArrived?.id}: ${firstArrived?.title}`);
    } finally {
      live.raw.child.kill('SIGINT');
      const { code } = await live.raw.exited;
      expect(code).toBe(0);
    }
  });

  it.each([['0'], ['abc'], ['86401'], ['-1']])(
    'refuses --live %s with one line and exit code 2',
    async (value) => {
      const out = await run(['sandbox', '--port', '0', '--live', value]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stderr).toContain(
        `--live must be a number of seconds from 0.001 to 86400, e.g. --live 5; got "${value}".`,
      );
    },
  );
});

describe('--sandbox: every tool with no key and no network', () => {
  it('serves all three tools over stdio, says the results are sample data, and writes only JSON-RPC to stdout', async () => {
    const session = await connectCli(scrubbedEnv(), ['--sandbox']);
    try {
      const changes = await session.call('list_model_changes', { since: 0, limit: 2 });
      expect(changes.isError).toBeFalsy();
      expect((changes.structuredContent as { items: unknown[] }).items).toHaveLength(2);
      const byHf = await session.call('get_model', { id: 'deepseek-ai/DeepSeek-R1' });
      expect(byHf.structuredContent).toMatchObject({ catalogStatus: 'listed', matchedBy: 'huggingfaceId' });
      const search = await session.call('search_models', { vendor: 'openai', limit: 2 });
      expect((search.structuredContent as { items: unknown[] }).items).toHaveLength(2);
      for (const result of [changes, byHf, search]) {
        expect(resultText(result)).toMatch(/^Sample data from the built-in sandbox, not the live service\./);
        expect(result._meta?.['modelFeed/sampleData']).toBe(true);
      }
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('keeps sandbox logs off stdout in server mode', async () => {
    const raw = spawnRaw(scrubbedEnv(), ['--sandbox', '--log-level', 'debug']);
    raw.send(INITIALIZE);
    raw.send(INITIALIZED);
    raw.send(toolCall(1, 'search_models', {}));
    await raw.answer(1);
    raw.child.stdin.end();
    await raw.exited;
    for (const line of raw.stdout().split('\n').filter(Boolean))
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(raw.stderr()).toContain('sandbox');
  });

  it('call get_model --id prints the text rendering', async () => {
    const out = await run(['call', 'get_model', '--id', 'openai/gpt-4o', '--sandbox']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Sample data from the built-in sandbox');
    expect(out.stdout).toMatch(
      /^openai\/gpt-4o — OpenAI: GPT-4o \(openai, commercial\): in \$[\d.]+ \/ out \$[\d.]+ per 1M tokens/m,
    );
    expect(out.stdout).toContain('Price history');
  });

  it('call search_models --vendor … --json prints the structured result', async () => {
    const out = await run([
      'call',
      'search_models',
      '--vendor',
      'google',
      '--limit',
      '2',
      '--json',
      '--sandbox',
    ]);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as { items: { id: string; vendor: string }[]; total: number };
    expect(result.items).toHaveLength(2);
    expect(result.items.every((m) => m.vendor === 'google')).toBe(true);
    expect(result.total).toBeGreaterThanOrEqual(2);
    expect(out.stderr).toContain('Sample data');
  });

  it('call exits 2 on invalid flags, as its help says, naming the flag typed', async () => {
    const bad = await run(['call', 'list_model_changes', '--limit', '500', '--sandbox']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'Invalid flags for call list_model_changes: --limit is 500; allowed: an integer from 1 to 100.\n',
    );
    const usage = await run(['call', 'get_model', '--nope']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown option '--nope'");
  });
});
