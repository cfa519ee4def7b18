/**
 * `setup` never harms a client's file: the built CLI on temp HOME folders, against a sandbox on
 * loopback. Any size of valid file is configured; a read-only file is refused and keeps its mode;
 * a temp file left by a killed run (it may hold the key) is removed by the next run.
 */

import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempFolder } from '../support/temp.js';
import { type Output, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

function put(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', MODEL_FEED_BASE_URL: sandbox.url, ...extra });
}

function setup(args: string[], env: Record<string, string>, input = '', timeoutMs?: number): Promise<Output> {
  return run(['setup', ...args], env, { input, timeoutMs });
}

/** A valid ~/.claude.json as a heavy user has it: one line per project, indented two spaces. */
function claudeJson(projects: number): string {
  const lines = Array.from({ length: projects }, (_, i) => `    "/p${i}": 1`);
  return `{\n  "projects": {\n${lines.join(',\n')}\n  }\n}\n`;
}

describe('any size of valid client file', () => {
  it('a ~/.claude.json of 130,000 lines is configured, its projects kept', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.claude.json');
    const original = claudeJson(130_000);
    put(path, original, 0o600);
    const result = await setup(['--client', 'claude-code'], envFor(home), `${sandbox.key}\n`, 60_000);
    expect(result.stderr).not.toContain('Internal error');
    expect(result.code, result.stderr).toBe(0);
    const written = JSON.parse(readFileSync(path, 'utf8')) as {
      projects: Record<string, number>;
      mcpServers: Record<string, { env: Record<string, string> }>;
    };
    expect(Object.keys(written.projects)).toHaveLength(130_000);
    expect(written.mcpServers['model-feed']!.env.MODEL_FEED_API_KEY).toBe(sandbox.key);
    // Only the entry was added: the original bytes are all still there, in order.
    const removed = await setup(['--client', 'claude-code', '--remove'], envFor(home), '', 60_000);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(path, 'utf8').replace(/,\n {2}"mcpServers": \{\}/, '')).toBe(original);
  }, 120_000);

  it('a 40 MB ~/.claude.json is configured and shown with --print', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.claude.json');
    const history = 'x'.repeat(100);
    const lines = Array.from({ length: 360_000 }, (_, i) => `    "/project/${i}": "${history}"`);
    put(path, `{\n  "projects": {\n${lines.join(',\n')}\n  }\n}\n`, 0o600);
    expect(statSync(path).size).toBeGreaterThan(40_000_000);
    const printed = await setup(
      ['--client', 'claude-code', '--print'],
      envFor(home),
      `${sandbox.key}\n`,
      120_000,
    );
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('+  "mcpServers": {');
    const result = await setup(['--client', 'claude-code'], envFor(home), `${sandbox.key}\n`, 120_000);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain(sandbox.key);
  }, 300_000);
});

describe('a read-only client file', () => {
  const GEMINI = '{\n  "theme": "dark"\n}\n';

  it('is refused, named with the fix, and keeps its bytes and its mode; the other clients are still configured', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.gemini/settings.json');
    put(path, GEMINI, 0o444);
    const result = await setup(['--client', 'gemini,cursor'], envFor(home), `${sandbox.key}\n`);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `Gemini CLI: ${path} is read-only (mode 0444); left it alone. To let setup change it, make it writable (chmod u+w ${path}), then run setup again.`,
    );
    expect(readFileSync(path, 'utf8')).toBe(GEMINI);
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(readdirSync(dirname(path))).toEqual(['settings.json']);
    expect(result.stdout).toContain('Cursor: added model-feed to');
  });

  it('--remove refuses it too, and deletes none of its backups', async () => {
    const home = tempFolder('mf-setup-safety-');
    const path = join(home, '.gemini/settings.json');
    put(path, GEMINI, 0o600);
    expect((await setup(['--client', 'gemini'], envFor(home), `${sandbox.key}\n`)).code).toBe(0);
    const withEntry = readFileSync(path, 'utf8');
    put(`${path}.20260101-000000.bak`, withEntry, 0o600);
    chmodSync(path, 0o400);
    const removed = await setup(['--client', 'gemini', '--remove'], envFor(home));
    expect(removed.code, removed.stderr).toBe(1);
    expect(removed.stderr).toContain(`Gemini CLI: ${path} is read-only (mode 0400); left it alone.`);
    expect(readFileSync(path, 'utf8')).toBe(withEntry);
    expect(statSync(path).mode & 0o777).toBe(0o400);
    expect(readdirSync(dirname(path))).toContain('settings.json.20260101-000000.bak');
  });
});
