/**
 * The V8 code cache of a session that never exits cleanly: a client that ends its servers with
 * SIGKILL still leaves a cache after the first `tools/list` or tool call, and the next start uses
 * it. Each case runs its own copy of bin/ and dist/, so no other test's cache is in the way.
 */

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { INITIALIZE, INITIALIZED, request, scrubbedEnv, spawnRaw, toolCall } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const installs: string[] = [];
afterAll(() => {
  for (const dir of installs) rmSync(dir, { recursive: true, force: true });
});

/** bin/ and dist/ as an install has them, in a fresh folder: no cache yet. */
function freshInstall(): { bin: string; dist: string } {
  const dir = mkdtempSync(join(tmpdir(), 'code-cache-e2e-'));
  installs.push(dir);
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist'));
  for (const file of ['bin/model-feed-mcp.cjs', 'bin/load-bundle.cjs'])
    copyFileSync(join(ROOT, file), join(dir, file));
  for (const file of [
    'index.cjs',
    'index.cjs.build-hash',
    'server.cjs',
    'server.cjs.build-hash',
    'sandbox.cjs',
  ])
    copyFileSync(join(ROOT, 'dist', file), join(dir, 'dist', file));
  return { bin: join(dir, 'bin/model-feed-mcp.cjs'), dist: join(dir, 'dist') };
}

const caches = (dist: string) => readdirSync(dist).filter((f) => f.endsWith('.v8cache'));

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every stdout line is a JSON-RPC message: nothing else was written there. */
function expectOnlyJsonRpc(stdout: string): void {
  for (const line of stdout.split('\n').filter(Boolean)) {
    expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }
  expect(stdout.endsWith('\n')).toBe(true);
}

const env = scrubbedEnv({ MODEL_FEED_LOG_LEVEL: 'debug' });

// With arguments the bin loads dist/index.cjs (the command line) on top of dist/server.cjs, whose
// code it shares; with none, dist/server.cjs alone. Each bundle has its own cache.
describe.each([
  ['dist/server.cjs and dist/index.cjs', ['--sandbox'], ['index.cjs.', 'server.cjs.']],
  ['dist/server.cjs', [], ['server.cjs.']],
])('the V8 code cache of %s, with a client that kills its servers', (_bundle, args, prefixes) => {
  it.each([
    ['tools/list', request(1, 'tools/list')],
    ['a tool call', toolCall(1, 'search_models', { vendor: 'openai' })],
  ])('is written soon after the first answer to %s, and the next start uses it', async (_, line) => {
    const { bin, dist } = freshInstall();
    const first = spawnRaw(env, args, bin);
    first.send(INITIALIZE);
    first.send(INITIALIZED);
    await first.answer(0);
    first.send(line);
    await first.answer(1);
    const written = await until(
      () => (caches(dist).length === prefixes.length ? caches(dist) : undefined),
      'the cache files',
    );
    expect(written.map((file) => file.slice(0, file.indexOf('.cjs.') + 5)).sort()).toEqual(prefixes);
    for (const file of written) expect(statSync(join(dist, file)).mode & 0o777).toBe(0o600);
    await until(() => (first.stderr().includes('V8 code cache written') ? true : undefined), 'the log line');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(first.stderr()).toContain('V8 code cache loaded=missing');
    expect(first.stderr()).toMatch(/V8 code cache written reason=first bytes=\d+/);
    expectOnlyJsonRpc(first.stdout());
    expect(first.stdout().split('\n').filter(Boolean)).toHaveLength(2);
    // Written atomically: no temp file is left.
    expect(readdirSync(dist).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const next = spawnRaw(env, args, bin);
    next.send(INITIALIZE);
    await next.answer(0);
    next.send(toolCall(2, 'get_model', { id: 'openai/gpt-4o' }));
    expect(await next.answer(2)).toMatchObject({ result: { content: [{ type: 'text' }] } });
    next.child.kill('SIGKILL');
    await next.exited;
    // V8 accepted it: the start-up compiled nothing it had not cached.
    expect(next.stderr()).toContain('V8 code cache loaded=accepted');
    expectOnlyJsonRpc(next.stdout());
    expect(caches(dist)).toEqual(written);
  });

  it('is not written after initialize alone: too early to hold what serving compiles', async () => {
    const { bin, dist } = freshInstall();
    const server = spawnRaw(env, args, bin);
    server.send(INITIALIZE);
    await server.answer(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(caches(dist)).toEqual([]);
    server.child.kill('SIGKILL');
    await server.exited;
  });
});
