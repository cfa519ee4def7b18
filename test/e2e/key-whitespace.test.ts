/**
 * A key with spaces or a line break around it (pasted from a page, or `$(cat keyfile)` gone wrong):
 * trimmed so it works, and the server, `call` and `doctor` each say so once, never quoting the key.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connectCli, run, scrubbedEnv } from './harness.js';

const SHELL_WARNING =
  'MODEL_FEED_API_KEY had spaces or line breaks around the key; they were removed and the key is used without them. Set it as export MODEL_FEED_API_KEY=<your key> with nothing around the key.';
const CLIENT_WARNING =
  'MODEL_FEED_API_KEY had spaces or line breaks around the key; they were removed and the key is used without them. Set it as "MODEL_FEED_API_KEY": "<your key>" in the MCP client\'s "env", with nothing around the key.';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const paddedEnv = () =>
  scrubbedEnv({ MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: `  ${sandbox.key} \n` });

/** How many times `text` holds `part`. */
const count = (text: string, part: string): number => text.split(part).length - 1;

describe('a key with surrounding whitespace', () => {
  it('call: works, and warns once in the words of a shell', async () => {
    const out = await run(['call', 'search_models', '--limit', '1'], paddedEnv());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('1 of ');
    expect(count(out.stderr, SHELL_WARNING)).toBe(1);
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });

  it('doctor: the settings check warns, the key is accepted, exit 0', async () => {
    const out = await run(['doctor', '--json'], paddedEnv());
    expect(out.code, out.stdout).toBe(0);
    const checks = (JSON.parse(out.stdout) as { checks: { id: string; status: string; detail: string }[] })
      .checks;
    const settings = checks.find((c) => c.id === 'settings');
    expect(settings?.status).toBe('warn');
    expect(count(settings?.detail ?? '', `WARNING: ${SHELL_WARNING}`)).toBe(1);
    expect(checks.find((c) => c.id === 'auth')?.status).toBe('pass');
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });

  it("the server: answers tool calls, and logs the warning once in the words of a client's env", async () => {
    const session = await connectCli(paddedEnv());
    try {
      const result = await session.call('search_models', { limit: 1 });
      expect(result.isError).toBeFalsy();
      expect(count(session.stderr(), CLIENT_WARNING)).toBe(1);
      expect(session.stderr()).not.toContain(sandbox.key);
    } finally {
      await session.close();
    }
  });
});
