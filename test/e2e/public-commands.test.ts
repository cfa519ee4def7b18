/**
 * The rest of the product on `--source public`: `--http` and stdio in both protocol eras, the
 * resources, completions and prompts, `watch` and `check`, each against a stub of the aggregator's
 * catalog on a loopback port (the other origins off). Facts as in public-source.test.ts.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, type ListingFacts, listing } from '../public/catalog-fixtures.js';
import { type StubOrigin, startStubOrigin } from '../support/stub-origin.js';
import { tempFolder } from '../support/temp.js';
import { BIN, connectCli, NODE, run } from './harness.js';
import { startHttpCli } from './http-support.js';
import { publicEnv as sharedPublicEnv } from './public-support.js';
import { envelopes, runWatch } from './watch-support.js';

const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);
const CATALOG: ListingFacts[] = [
  {
    id: 'openai/gpt-5',
    name: 'OpenAI: GPT-5',
    prompt: '0.00000125',
    completion: '0.00001',
    created: now - 200 * DAY,
  },
  {
    id: 'openai/gpt-5-mini',
    name: 'OpenAI: GPT-5 Mini',
    prompt: '0.00000025',
    completion: '0.000002',
    created: now - 200 * DAY,
  },
  {
    id: 'moonshotai/kimi-k3',
    name: 'MoonshotAI: Kimi K3',
    prompt: '0.0000006',
    completion: '0.0000025',
    created: now - 14 * DAY,
  },
];
const LOCAL_KEY = 'mfsk_local_public_test_0123456789abcdef';

let origin: StubOrigin;
beforeAll(async () => {
  origin = await startStubOrigin();
  origin.serve('/models', answer(CATALOG.map(listing)));
});
afterAll(() => origin.close());

const publicEnv = (stateHome: string, extra: Record<string, string> = {}) =>
  sharedPublicEnv(origin, stateHome, extra);

type Negotiation = 'auto' | 'legacy';
const newClient = (mode: Negotiation) =>
  new Client({ name: 'e2e-public', version: '1' }, { versionNegotiation: { mode } });

async function searchOpenAi(client: Client) {
  const result = await client.callTool({ name: 'search_models', arguments: { vendor: 'openai' } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as { items: { id: string }[]; dataSource: { kind: string } };
}

describe('--source public over every transport and era', () => {
  it('stdio and --http, 2026-07-28 and 2025-11-25: the same answer, each with its dataSource', async () => {
    const env = publicEnv(tempFolder('mf-public-state-'), { MODEL_FEED_API_KEY: LOCAL_KEY });
    const http = await startHttpCli(env);
    const clients: Client[] = [];
    try {
      for (const mode of ['auto', 'legacy'] as const) {
        const overHttp = newClient(mode);
        await overHttp.connect(
          new StreamableHTTPClientTransport(new URL(http.url), {
            requestInit: { headers: { authorization: `Bearer ${LOCAL_KEY}` } },
          }),
        );
        const overStdio = newClient(mode);
        await overStdio.connect(
          new StdioClientTransport({ command: NODE, args: [BIN], env, stderr: 'pipe' }),
        );
        clients.push(overHttp, overStdio);
      }
      expect(clients.map((client) => client.getProtocolEra())).toEqual([
        'modern',
        'modern',
        'legacy',
        'legacy',
      ]);
      const answers = await Promise.all(clients.map(searchOpenAi));
      for (const found of answers) {
        expect(found.items.map((item) => item.id).sort()).toEqual(['openai/gpt-5', 'openai/gpt-5-mini']);
        expect(found.dataSource.kind).toBe('public');
      }
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await http.stop();
    }
  });

  it('resources, completions and prompts read the public record', async () => {
    const session = await connectCli(publicEnv(tempFolder('mf-public-state-')));
    try {
      const model = await session.client.readResource({ uri: 'model-feed://models/openai/gpt-5' });
      const text = model.contents.map((content) => ('text' in content ? content.text : '')).join('');
      expect(text).toContain('openai/gpt-5');
      const ids = await session.client.complete({
        ref: { type: 'ref/resource', uri: 'model-feed://models/{id}' },
        argument: { name: 'id', value: 'openai/gpt-5-m' },
      });
      expect(ids.completion.values[0]).toBe('openai/gpt-5-mini');
      const prompt = await session.client.getPrompt({
        name: 'compare_models',
        arguments: { ids: 'openai/gpt-5, moonshotai/kimi-k3' },
      });
      expect(prompt.messages.length).toBeGreaterThan(1);
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('watch and check on --source public', () => {
  it('watch delivers the derived feed once, and then only what changed since', async () => {
    const stateHome = tempFolder('mf-public-state-');
    const env = publicEnv(stateHome, { MODEL_FEED_REFRESH_S: '0' });
    origin.serve('/models', answer(CATALOG.map(listing)));
    const first = await runWatch(['--once', '--since', '0'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(envelopes(first.stdout).map((envelope) => envelope.data.afterValue)).toEqual([
      'moonshotai/kimi-k3',
    ]);

    origin.serve(
      '/models',
      answer(
        CATALOG.map((model) => (model.id === 'openai/gpt-5' ? { ...model, prompt: '0.000001' } : model)).map(
          listing,
        ),
      ),
    );
    const second = await runWatch(['--once'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(
      envelopes(second.stdout).map((envelope) => [envelope.data.eventType, envelope.data.afterValue]),
    ).toEqual([['price_change', 'in $1 / out $10 per 1M tokens']]);
    origin.serve('/models', answer(CATALOG.map(listing)));
  });

  it('check holds the code to the real catalog: a listed id passes, an unknown one is not listed', async () => {
    const tree = tempFolder('mf-public-check-');
    mkdirSync(join(tree, 'src'));
    writeFileSync(join(tree, 'src', 'app.py'), 'MODEL = "openai/gpt-5"\nOLD = "openai/gpt-5-nano"\n');
    const result = await run(
      ['check', '.', '--format', 'json', '--fail-on', 'not_listed'],
      publicEnv(tempFolder('mf-public-state-')),
      { cwd: tree },
    );
    expect(result.code, result.stderr + result.stdout).toBe(1);
    const report = JSON.parse(result.stdout) as {
      references: { text: string; model: string | null; findings: { kind: string }[] }[];
    };
    const byText = Object.fromEntries(
      report.references.map((ref) => [ref.text, ref.findings.map((f) => f.kind)]),
    );
    expect(byText['openai/gpt-5']).not.toContain('not_listed');
    expect(byText['openai/gpt-5-nano']).toContain('not_listed');
  });
});
