/**
 * The published package as a user gets it: `npm pack`, installed into an empty folder with no
 * network (the registry points nowhere and npm is offline), then run through `npx`, and required
 * and imported as a library. Runs on the Node the suite is given (CI: Node 20, then Node 24).
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';
import { NODE } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

let project: string;
let env: Record<string, string>;
let shipped: string[];
let packedBytes: number;

beforeAll(() => {
  const work = tempFolder('model-feed-mcp-pack-');
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { filename: string; size: number; files: { path: string }[] }[];
  shipped = packed!.files.map((f) => f.path).sort();
  packedBytes = packed!.size;
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  // The Node under test runs npm and npx too; nothing can reach a registry.
  env = {
    PATH: `${dirname(NODE)}:${process.env.PATH ?? ''}`,
    HOME: work,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  execFileSync('npm', ['install', join(work, packed!.filename)], { cwd: project, env, stdio: 'pipe' });
}, 120_000);

describe('the packed tarball, installed offline', () => {
  it('runs through npx and answers tools/list over stdio', async () => {
    const client = new Client({ name: 'package-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: 'npx',
        args: ['--offline', '--no-install', 'model-feed-mcp'],
        cwd: project,
        env: {
          ...env,
          MODEL_FEED_API_KEY: 'mfsk_package_test_0123456789',
          MODEL_FEED_BASE_URL: 'https://feed.invalid',
        },
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_model_changes', 'get_model', 'search_models']);
    } finally {
      await client.close();
    }
  });

  it('has no runtime dependencies and ships only what runs', () => {
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules', pkg.name, 'package.json'), 'utf8'),
    ) as {
      dependencies?: object;
    };
    expect(installed.dependencies ?? {}).toEqual({});
    expect(shipped).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'bin/model-feed-mcp.cjs',
      'dist/check-worker.cjs',
      'dist/index.cjs',
      'dist/index.d.cts',
      'dist/sandbox.cjs',
      'dist/server.cjs',
      'dist/setup-formats.cjs',
      'package.json',
    ]);
  });

  it("ships check's worker as a bundle of its own that loads only Node's modules: no server.cjs, SDK or zod", () => {
    const worker = readFileSync(join(project, 'node_modules', pkg.name, 'dist/check-worker.cjs'), 'utf8');
    const required = [...worker.matchAll(/require\("([^"]+)"\)/g)].map(([, name]) =>
      name!.replace(/^node:/, ''),
    );
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((name) => !builtinModules.includes(name))).toEqual([]);
  });

  // Every bundle is self-contained, built from its dependencies' public entry points: dist/index.cjs
  // (the command line and the library) repeats what dist/server.cjs holds (about 130 KB packed).
  it('is at most 450 KB packed', () => {
    expect(packedBytes).toBeLessThanOrEqual(450_000);
  });

  it('is a library too, from require and from import, with the sandbox loaded on demand', () => {
    const script = `
      const { createServer, listTools, startSandbox, VERSION } = MODULE;
      if (VERSION !== ${JSON.stringify(pkg.version)}) throw new Error('version ' + VERSION);
      if (listTools().length !== 3 || typeof createServer !== 'function') throw new Error('api');
      // The errors the shared code throws are the classes exported here (one copy of each).
      try {
        MODULE.resolveConfig({ timeout: 'x' }, { MODEL_FEED_API_KEY: 'mfsk_package_test_0123456789' });
        throw new Error('resolveConfig took a bad timeout');
      } catch (error) {
        if (!(error instanceof MODULE.ConfigError)) throw error;
      }
      startSandbox().then(async (sandbox) => {
        const res = await fetch(sandbox.url + '/api/v1/models', { headers: { authorization: 'Bearer ' + sandbox.key } });
        process.stdout.write(String((await res.json()).total));
        await sandbox.close();
      });`;
    const required = execFileSync(NODE, ['-e', script.replaceAll('MODULE', "require('model-feed-mcp')")], {
      cwd: project,
      env,
      encoding: 'utf8',
    });
    expect(Number(required)).toBeGreaterThan(50);
    const imported = execFileSync(
      NODE,
      [
        '--input-type=module',
        '-e',
        `import * as m from 'model-feed-mcp';${script.replaceAll('MODULE', 'm')}`,
      ],
      {
        cwd: project,
        env,
        encoding: 'utf8',
      },
    );
    expect(imported).toBe(required);
  });
});
