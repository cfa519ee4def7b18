/**
 * Node's compile cache (Node >= 22.1), which the bin turns on in the user's cache folder: damaged
 * cache files never stop a start. Node checks each file before use and compiles anew when one does
 * not match. On Node 20 there is no compile cache, and this suite is skipped by name; CI's Node 24
 * run of the end-to-end suite covers it.
 */

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INITIALIZE, INITIALIZED, NODE, request, run, scrubbedEnv, spawnRaw } from './harness.js';

const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
const hasCompileCache =
  execFileSync(NODE, ['-p', "typeof require('node:module').enableCompileCache"], {
    encoding: 'utf8',
  }).trim() === 'function';

/** Every file under `folder`, at any depth. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `--version` (the command line's bundle) and a `tools/list` over stdio (the server's), each checked. */
async function startBoth(env: Record<string, string>): Promise<void> {
  const versioned = await run(['--version'], env);
  expect(versioned).toMatchObject({ code: 0, stderr: '' });
  expect(versioned.stdout).toMatch(/^\d+\.\d+\.\d+/);

  const server = spawnRaw(env);
  server.send(INITIALIZE);
  server.send(INITIALIZED);
  server.send(request(1, 'tools/list'));
  const listed = (await server.answer(1)) as { result?: { tools?: { name: string }[] } };
  expect(listed.result?.tools?.map((tool) => tool.name)).toEqual([
    'list_model_changes',
    'get_model',
    'search_models',
  ]);
  server.child.stdin.end();
  expect(await server.exited).toMatchObject({ code: 0, signal: null });
}

/** Each file with 64 bytes flipped at `at` (0: its start, 1: its end); the damaged bytes. */
function damage(files: string[], at: number): Buffer[] {
  return files.map((file) => {
    const bytes = readFileSync(file);
    const start = Math.max(0, Math.min(bytes.length - 64, Math.floor(bytes.length * at)));
    for (let i = start; i < Math.min(bytes.length, start + 64); i++) bytes[i] = (bytes[i] ?? 0) ^ 0xff;
    writeFileSync(file, bytes);
    return bytes;
  });
}

describe.runIf(hasCompileCache)(
  hasCompileCache
    ? `Node's compile cache (${version})`
    : `Node's compile cache: skipped, ${version} has none (Node >= 22.1 has it)`,
  () => {
    it('is kept in the user cache folder, and damaged bytes in its files never stop a start', async () => {
      const env = scrubbedEnv({
        MODEL_FEED_API_KEY: 'mfsk_compile_cache_test_0123456789',
        MODEL_FEED_BASE_URL: 'https://feed.invalid',
      });
      const folder = join(env.XDG_CACHE_HOME!, 'model-feed-mcp-compile-cache');
      await startBoth(env);
      const files = filesUnder(folder);
      // One file for each bundle: dist/index.cjs (--version) and dist/server.cjs (the stdio server).
      expect(files).toHaveLength(2);

      for (const at of [0, 0.5, 1]) {
        const damaged = damage(files, at);
        await startBoth(env);
        // Node found each file damaged, compiled anew and put a good cache in its place.
        expect(filesUnder(folder).sort()).toEqual([...files].sort());
        expect(files.map((file, i) => readFileSync(file).equals(damaged[i]!))).toEqual([false, false]);
      }
    });
  },
);
