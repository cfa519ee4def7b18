/**
 * `doctor --source public`, the built CLI against the public origins standing in on a loopback port
 * (test/support/stub-origin.ts): each origin's address, route, DNS, TCP and one GET; an origin off;
 * one failing (a warning); the catalog unreachable (a failure). Ids and prices as in
 * test/e2e/public-source.test.ts (the aggregator's public catalog).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, listing } from '../public/catalog-fixtures.js';
import {
  deprecationRecord,
  deprecationsAnswer,
  modelsDevAnswer,
  o3Record,
  repo,
} from '../public/origin-fixtures.js';
import { closedPort } from '../support/closed-port.js';
import { type StubOrigin, startStubOrigin } from '../support/stub-origin.js';
import { tempFolder } from '../support/temp.js';
import { connectCli, run, scrubbedEnv } from './harness.js';

interface DoctorCheck {
  id: string;
  origin?: string;
  title: string;
  status: 'pass' | 'warn' | 'fail' | 'skip' | 'off';
  detail: string;
  fix?: string;
}

const now = Math.floor(Date.now() / 1000);
const CATALOG = answer(
  [
    {
      id: 'openai/gpt-5',
      name: 'OpenAI: GPT-5',
      prompt: '0.00000125',
      completion: '0.00001',
      created: now - 200 * 86_400,
    },
    {
      id: 'moonshotai/kimi-k3',
      name: 'MoonshotAI: Kimi K3',
      prompt: '0.0000006',
      completion: '0.0000025',
      created: now - 14 * 86_400,
    },
  ].map(listing),
);

let origin: StubOrigin;
beforeAll(async () => {
  origin = await startStubOrigin();
});
afterAll(() => origin.close());

/** Every origin on the stub, each under its own path; `extra` overrides. */
function env(stateHome: string, extra: Record<string, string> = {}) {
  return scrubbedEnv({
    MODEL_FEED_OPENROUTER_URL: origin.url,
    MODEL_FEED_MODELS_DEV_URL: `${origin.root}/models-dev`,
    MODEL_FEED_HUGGINGFACE_URL: `${origin.root}/hf`,
    MODEL_FEED_DEPRECATIONS_URL: `${origin.root}/deprecations`,
    MODEL_FEED_TIMEOUT_MS: '3000',
    XDG_STATE_HOME: stateHome,
    ...extra,
  });
}

function serveAll(): void {
  origin.serve('/models', CATALOG);
  origin.serve('//models-dev/api.json', modelsDevAnswer({ openai: [{ id: 'gpt-5' }, { id: 'o3' }] }));
  origin.serve('//hf/api/models?limit=1', [repo({ id: 'Qwen/Qwen3.8-27B', createdDaysAgo: 1 })]);
  origin.serve('//deprecations/api/v1/models.json', deprecationsAnswer([deprecationRecord(o3Record)]));
}

async function doctor(environment: Record<string, string>, args: string[] = ['--source', 'public']) {
  const out = await run(['doctor', '--json', ...args], environment);
  const report = JSON.parse(out.stdout) as { ok: boolean; checks: DoctorCheck[] };
  const find = (id: string, name?: string): DoctorCheck => {
    const found = report.checks.find((c) => c.id === id && c.origin === name);
    if (!found) throw new Error(`no ${id} check${name ? ` of ${name}` : ''} in ${out.stdout}`);
    return found;
  };
  return { ...out, report, find };
}

describe('doctor --source public', () => {
  it('checks every origin (address, DNS, TCP, one GET) and the record, with no key and no base URL', async () => {
    serveAll();
    const stateHome = tempFolder('mf-doctor-public-');
    const before = origin.requests.length;
    const out = await doctor(env(stateHome, { HTTP_PROXY: 'http://127.0.0.1:9' }));
    expect(out.code, out.stdout).toBe(0);
    expect(out.report.ok).toBe(true);
    expect(out.report.checks.map((c) => (c.origin ? `${c.origin}:${c.id}` : c.id))).toEqual([
      'node',
      'settings',
      'ca',
      ...['openrouter', 'models.dev', 'huggingface', 'modeldeprecations.dev'].flatMap((name) =>
        ['origin', 'dns', 'tcp', 'get'].map((id) => `${name}:${id}`),
      ),
      'record',
    ]);
    expect(out.report.checks.every((c) => c.status === 'pass')).toBe(true);
    expect(out.find('settings').detail).toMatch(/^source public from --source; refresh 3600 s \(default\)/);
    // A proxy is set, but the origins here are on loopback, which never goes through one.
    expect(out.find('origin', 'openrouter').detail).toBe(
      `${origin.url} from MODEL_FEED_OPENROUTER_URL; direct: loopback addresses never go through a proxy`,
    );
    expect(out.find('get', 'openrouter')).toMatchObject({
      title: 'Catalog GET',
      detail: expect.stringMatching(/^GET \/models: HTTP 200, \d+ (B|KB), 2 models listed$/),
    });
    expect(out.find('get', 'models.dev').detail).toMatch(/HTTP 200, .*1 provider, 2 models$/);
    expect(out.find('get', 'huggingface').detail).toMatch(/^GET \/api\/models\?limit=1: HTTP 200/);
    expect(out.find('get', 'modeldeprecations.dev').detail).toMatch(/1 deprecation record$/);
    expect(out.find('record').detail).toContain('nothing recorded yet');
    // One GET each, with our user agent and no key; doctor records nothing.
    const sent = origin.requests.slice(before);
    expect(sent.map((r) => r.path).sort()).toEqual(
      [
        '/api/v1/models',
        '/deprecations/api/v1/models.json',
        '/hf/api/models?limit=1',
        '/models-dev/api.json',
      ].sort(),
    );
    expect(sent.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(sent.every((r) => /^model-feed-mcp\//.test(String(r.headers['user-agent'])))).toBe(true);
  });

  it('also with MODEL_FEED_SOURCE=public, in text: one line per check, none about an API key', async () => {
    serveAll();
    const out = await run(['doctor'], env(tempFolder('mf-doctor-public-'), { MODEL_FEED_SOURCE: 'public' }));
    expect(out.code, out.stdout).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines.find((line) => line.includes('Catalog GET'))).toMatch(
      /^✔ Catalog GET +GET \/models: HTTP 200/,
    );
    expect(lines.at(-1)).toBe(`All ${lines.length - 1} checks passed.`);
    expect(out.stdout).not.toMatch(/API key|Authentication|Base URL/);
  });

  it('reports the record a session made: where, the newest snapshot, the polls', async () => {
    serveAll();
    const stateHome = tempFolder('mf-doctor-public-');
    const environment = env(stateHome, { MODEL_FEED_SOURCE: 'public' });
    const session = await connectCli(environment);
    try {
      const result = await session.call('search_models', {});
      expect(result.isError).toBeFalsy();
    } finally {
      await session.close();
    }
    const out = await doctor(environment, []);
    expect(out.code, out.stdout).toBe(0);
    expect(out.find('record').detail).toMatch(
      new RegExp(
        `^${stateHome}/model-feed-mcp/public/[0-9a-f]{16}: newest snapshot \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\(\\d+ s ago, fresh\\); 1 poll recorded since .*; last poll: openrouter ok, .*models\\.dev ok`,
      ),
    );
  });

  it('an origin set off is reported as off, not as a failure', async () => {
    serveAll();
    const out = await doctor(env(tempFolder('mf-doctor-public-'), { MODEL_FEED_HUGGINGFACE_URL: 'off' }));
    expect(out.code, out.stdout).toBe(0);
    expect(out.find('origin', 'huggingface')).toMatchObject({
      status: 'off',
      detail: expect.stringMatching(
        /^off \(MODEL_FEED_HUGGINGFACE_URL=off\): not asked; the feed goes on without/,
      ),
    });
    expect(out.report.checks.filter((c) => c.origin === 'huggingface')).toHaveLength(1);
    const text = await run(
      ['doctor', '--source', 'public'],
      env(tempFolder('mf-doctor-public-'), { MODEL_FEED_HUGGINGFACE_URL: 'off' }),
    );
    expect(text.stdout).toMatch(/^○ Hugging Face +off/m);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(/^All \d+ checks passed, 1 off\.$/);
  });

  it('another origin failing is a warning that says what the feed goes without: exit 0', async () => {
    serveAll();
    const port = await closedPort();
    const out = await doctor(
      env(tempFolder('mf-doctor-public-'), {
        // models.dev answers 404 (nothing served there); the deprecations' port is closed.
        MODEL_FEED_MODELS_DEV_URL: `${origin.root}/nothing-here`,
        MODEL_FEED_DEPRECATIONS_URL: `http://127.0.0.1:${port}`,
      }),
    );
    expect(out.code, out.stdout).toBe(0);
    expect(out.find('get', 'models.dev')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('answered HTTP 404'),
      fix: expect.stringContaining('The feed still works without models.dev'),
    });
    expect(out.find('tcp', 'modeldeprecations.dev')).toMatchObject({
      status: 'warn',
      detail: `127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
      fix: expect.stringMatching(
        /check the port in MODEL_FEED_DEPRECATIONS_URL .*set MODEL_FEED_DEPRECATIONS_URL=off/,
      ),
    });
    // The steps it stopped are not listed: a step not run would fail doctor.
    expect(out.report.checks.filter((c) => c.origin === 'modeldeprecations.dev').map((c) => c.id)).toEqual([
      'origin',
      'dns',
      'tcp',
    ]);
    expect(out.find('get', 'openrouter').status).toBe('pass');
  });

  it('the catalog unreachable fails doctor (exit 1): it is the spine of the feed', async () => {
    serveAll();
    const port = await closedPort();
    const out = await doctor(
      env(tempFolder('mf-doctor-public-'), { MODEL_FEED_OPENROUTER_URL: `http://127.0.0.1:${port}/api/v1` }),
    );
    expect(out.code).toBe(1);
    expect(out.report.ok).toBe(false);
    expect(out.find('tcp', 'openrouter')).toMatchObject({
      status: 'fail',
      detail: `127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
      fix: expect.stringContaining('MODEL_FEED_OPENROUTER_URL'),
    });
    expect(out.find('get', 'openrouter')).toMatchObject({ status: 'skip', detail: 'skipped: TCP failed' });
    expect(out.find('get', 'models.dev').status).toBe('pass');
  });

  it('the catalog off: reported as off; with nothing recorded, the record check fails', async () => {
    serveAll();
    const out = await doctor(env(tempFolder('mf-doctor-public-'), { MODEL_FEED_OPENROUTER_URL: 'off' }));
    expect(out.code).toBe(1);
    expect(out.find('origin', 'openrouter')).toMatchObject({ status: 'off' });
    expect(out.find('record')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('nothing recorded, and the catalog is off'),
    });
  });

  it('a catalog answer that lists no models fails too', async () => {
    serveAll();
    origin.serve('/models', { data: 'nothing' });
    const out = await doctor(env(tempFolder('mf-doctor-public-')));
    expect(out.code).toBe(1);
    expect(out.find('get', 'openrouter')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('but the answer has no "data" list of models'),
    });
  });
});

describe('doctor on the service with no key', () => {
  it('names the two ways on without an account', async () => {
    const out = await run(['doctor', '--json'], scrubbedEnv());
    const report = JSON.parse(out.stdout) as { checks: DoctorCheck[] };
    expect(out.code).toBe(1);
    expect(report.checks.find((c) => c.id === 'source')).toMatchObject({
      status: 'warn',
      fix: expect.stringMatching(/--source public.*public origins.*--sandbox.*sample data/),
    });
  });
});
