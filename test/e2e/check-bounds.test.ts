/**
 * `check`'s memory and time are bounded by the run, not per file: a tree of millions of references,
 * files of distinct near misses, huge and hostile ignore files. Each run must finish, within a
 * bounded peak RSS (measured by /usr/bin/time), and say what it left out.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, type Output, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const MB = 1024 * 1024;

/** The CLI under /usr/bin/time: its output, and its peak RSS in bytes (bounded wait). */
function measured(args: string[], cwd: string, timeoutMs: number): Promise<Output & { peakRss: number }> {
  const env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'peak-rss-kb %M', NODE, BIN, ...args], {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const peak = /peak-rss-kb (\d+)/.exec(stderr);
      if (!peak) return reject(new Error(`no peak RSS in: ${stderr.slice(-2000)}`));
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString(),
        stderr: stderr.replace(/.*peak-rss-kb \d+\n?$/s, ''),
        peakRss: Number(peak[1]) * 1024,
      });
    });
  });
}

describe('check within bounds', () => {
  it('4,000 files of 1,000 references each: a bounded list, a bounded RSS, the rest counted', async () => {
    const tree = tempFolder('mf-bounds-');
    const body = 'm = "openai/gpt-4o"\n'.repeat(1000);
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(tree, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(tree, `d${d}`, `f${f}.py`), body);
    }
    const result = await measured(['check', '--format', 'json', '.'], tree, 300_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({
      scanned: 4000,
      references: 50_000,
      referencesNotListed: 3_950_000,
      referencesNotListedFailing: 0,
    });
    // It died out of memory at 4.45 GB before; 123 MB when measured with the caps.
    expect(result.peakRss).toBeLessThan(400 * MB);
  }, 400_000);

  it('ten 4 MiB files of distinct near misses, --format sarif: bounded, said, and failing', async () => {
    const tree = tempFolder('mf-bounds-');
    for (let f = 0; f < 10; f++) {
      const lines: string[] = [];
      for (let i = 0, size = 0; size < 4 * MB - 100; i++) {
        const line = `m = "openai/gpt-4o-f${f}x${i}"`;
        lines.push(line);
        size += line.length + 1;
      }
      writeFileSync(join(tree, `f${f}.py`), `${lines.join('\n')}\n`);
    }
    const result = await measured(['check', '--format', 'sarif', '.'], tree, 400_000);
    expect(result.code, result.stderr).toBe(1);
    const run = JSON.parse(result.stdout).runs[0];
    expect(run.results).toHaveLength(50_000);
    const [notice] = run.invocations[0].toolExecutionNotifications;
    expect(notice.message.text).toMatch(
      /^\d+ references past the caps \(5,000 a file, 50,000 a run\) not listed; \d+ of them with a finding of a --fail-on kind, which fail the run/,
    );
    // One such file alone took 748 MB before the caps, and ten died. With V8's own young-generation
    // sizing (no run-time flags) Node 24 peaks at 335-440 MB here, Node 20 near 230.
    expect(result.peakRss).toBeLessThan(600 * MB);
  }, 500_000);

  it('four nested 1 MiB .gitignore files over 2,000 files: finishes, saying which rules it left out', async () => {
    const tree = tempFolder('mf-bounds-');
    let folder = tree;
    for (let level = 0; level < 4; level++) {
      const rules: string[] = [];
      for (let i = 0, size = 0; size < MB - 200; i++) {
        const rule = i % 3 ? `gen${level}_${i}_*.tmp` : `name${level}_${i}`;
        rules.push(rule);
        size += rule.length + 1;
      }
      writeFileSync(join(folder, '.gitignore'), `${rules.join('\n')}\n`);
      folder = join(folder, `l${level}`);
      mkdirSync(folder);
    }
    for (let f = 0; f < 2000; f++) writeFileSync(join(folder, `f${f}.py`), 'x = "openai/gpt-4o"\n');
    writeFileSync(join(folder, 'gen3_2_x.tmp'), 'x = "openai/gpt-4o"\n');
    const result = await measured(['check', '--format', 'json', '.'], tree, 300_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    // The 2,000 files and the 4 ignore files; the one file a kept rule ignores is left out.
    expect(report.summary).toMatchObject({ scanned: 2004, references: 2000 });
    expect(report.summary.ignoreRulesLeftOut).toBeGreaterThan(0);
    expect(report.summary.ignoreFilesCapped).toEqual([
      '.gitignore',
      'l0/.gitignore',
      'l0/l1/.gitignore',
      'l0/l1/l2/.gitignore',
    ]);
    expect(result.peakRss).toBeLessThan(300 * MB);
  }, 400_000);

  it('a 20 KB ignore rule: no stack overflow, no regular expression on stderr; the rule is left out, and said', async () => {
    const tree = tempFolder('mf-bounds-');
    writeFileSync(join(tree, '.gitignore'), `${'a*'.repeat(10_000)}\n*.log\n`);
    writeFileSync(join(tree, 'app.py'), 'm = "openai/gpt-4o-transcribe"\n');
    writeFileSync(join(tree, 'debug.log'), 'm = "openai/gpt-4o-transcribe"\n');
    const result = await measured(['check', '.'], tree, 60_000);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('Internal error');
    expect(result.stderr.length).toBeLessThan(2000);
    expect(result.stdout).toContain('app.py:1:6');
    expect(result.stdout).not.toContain('debug.log');
    expect(result.stdout).toContain(
      'Ignore rules not all used (a file over 1 MiB is not read; a rule over 4,096 characters, or past 10,000 in a file or 1,000 with wildcards, is left out): 1 rule left out, in .gitignore.',
    );
  });
});
