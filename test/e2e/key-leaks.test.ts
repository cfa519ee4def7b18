/**
 * The key, put wherever a hurried user puts it, never appears in anything the CLI prints: the
 * server's tool results and stderr log (at debug level), `call`, and `doctor`. The built CLI,
 * spawned with a scrubbed environment, against the sandbox.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { INITIALIZE, INITIALIZED, request, run, scrubbedEnv, spawnRaw, toolCall } from './harness.js';

const KEY = 'mfsk_leak_5d41402abc4b2a76b9719d91';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ key: KEY, tier: 'pro' });
});
afterAll(async () => {
  await sandbox.close();
});

/** Where the key goes, for each case; `base` is the sandbox's URL. */
const CASES: Record<string, (base: string) => Record<string, string>> = {
  'key and base URL swapped': (base) => ({ MODEL_FEED_API_KEY: base, MODEL_FEED_BASE_URL: KEY }),
  'key in a remote http base URL': () => ({
    MODEL_FEED_API_KEY: KEY,
    MODEL_FEED_BASE_URL: `http://remote/${KEY}`,
  }),
  'key in the base URL path, no key variable': () => ({
    MODEL_FEED_BASE_URL: `https://h.invalid/${KEY}/api/v1`,
  }),
  'key in the working base URL path': (base) => ({
    MODEL_FEED_API_KEY: KEY,
    MODEL_FEED_BASE_URL: `${base}/${KEY}`,
  }),
  'key as the proxy': (base) => ({ MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: base, HTTPS_PROXY: KEY }),
  'key as the proxy password': (base) => ({
    MODEL_FEED_API_KEY: KEY,
    MODEL_FEED_BASE_URL: base,
    HTTPS_PROXY: `http://user:${KEY}@proxy.invalid:3128`,
  }),
  'key in NO_PROXY': (base) => ({ MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: base, NO_PROXY: KEY }),
  'key as the timeout': (base) => ({
    MODEL_FEED_API_KEY: KEY,
    MODEL_FEED_BASE_URL: base,
    MODEL_FEED_TIMEOUT_MS: KEY,
  }),
  'key as the cache TTL': (base) => ({
    MODEL_FEED_API_KEY: KEY,
    MODEL_FEED_BASE_URL: base,
    MODEL_FEED_CACHE_TTL_S: KEY,
  }),
  'key with its Bearer prefix, everything else right': (base) => ({
    MODEL_FEED_API_KEY: `Bearer ${KEY}`,
    MODEL_FEED_BASE_URL: base,
  }),
};

/** One stdio session: initialize, a tool call, tools/list, end of input. Everything it printed. */
async function serverOutput(env: Record<string, string>): Promise<string> {
  const raw = spawnRaw(scrubbedEnv({ MODEL_FEED_LOG_LEVEL: 'debug', ...env }), ['--timeout', '2000']);
  raw.send(INITIALIZE);
  raw.send(INITIALIZED);
  raw.send(toolCall(1, 'get_model', { id: 'openai/gpt-4o' }));
  raw.send(request(2, 'tools/list'));
  // A setting that stops the server at start (a bad timeout) answers nothing: its exit is the answer.
  await Promise.race([raw.answer(2, 8000).then(() => raw.answer(1, 8000)), raw.exited]);
  raw.child.stdin.end();
  await raw.exited;
  return `${raw.stdout()}\n${raw.stderr()}`;
}

describe('the key appears in no output, wherever it was put', () => {
  for (const [name, envFor] of Object.entries(CASES)) {
    it(name, async () => {
      const env = envFor(sandbox.url);
      const outputs = {
        server: await serverOutput(env),
        call: await run(
          ['call', 'search_models', '--vendor', 'openai', '--timeout', '2000'],
          scrubbedEnv(env),
        ),
        callJson: await run(['call', 'list_model_changes', '--json', '--timeout', '2000'], scrubbedEnv(env)),
        doctor: await run(['doctor', '--timeout', '2000'], scrubbedEnv(env)),
        doctorJson: await run(['doctor', '--json', '--timeout', '2000'], scrubbedEnv(env)),
      };
      for (const [where, output] of Object.entries(outputs)) {
        const text = typeof output === 'string' ? output : `${output.stdout}\n${output.stderr}`;
        expect(text, `${where} printed the key`).not.toContain(KEY);
        // Not even most of it: a redaction must not leave a recognisable stem behind.
        expect(text, `${where} printed part of the key`).not.toContain(KEY.slice(5, 25));
      }
    });
  }
});
