/**
 * `watch` on a disk that says no: full, read-only, a folder or a file in the wrong place, a name
 * too long, a folder this user cannot write. Each is a plain message naming the file and the fix,
 * exit 1, never "Internal error … report it"; and a fault no retry can fix is not retried.
 */

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { runAsNobody } from './as-nobody.js';
import { fullTmpfs, fullTmpfsIn, needRoot, tmpfs } from './disk-faults.js';
import { BIN, NODE, type Output } from './harness.js';
import { feedIds, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

/** A plain failure: exit 1, the reason and the file on the last line, no report-it. */
function expectPlain(run: Output, ...words: string[]): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).not.toContain('Internal error');
  expect(run.stderr).not.toContain('report it');
  const last = run.stderr.trim().split('\n').at(-1) ?? '';
  for (const word of words) expect(last).toContain(word);
}

const once = (...flags: string[]) =>
  runWatch(['--once', '--since', '0', ...flags], watchEnv(sandbox), 30_000);

describe('the state file and its lock', () => {
  it('on a read-only disk: names the state file, the reason and the fix', async () => {
    const dir = tmpfs(join(tempDir(), 'ro'), { readOnly: true });
    expectPlain(
      await once('--state', join(dir, 's.json')),
      join(dir, 's.json'),
      'read-only (EROFS)',
      '--state',
    );
  });

  it('on a full disk: says the disk is full', async () => {
    const dir = fullTmpfs(join(tempDir(), 'full'));
    expectPlain(await once('--state', join(dir, 's.json')), 'the disk is full (ENOSPC)', '--state');
  });

  it('under a regular file: says a part of the path is a file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    expectPlain(await once('--state', join(dir, 'file', 's.json')), join(dir, 'file'), 'not a folder');
  });

  it('with a name too long: says so without repeating the whole name', async () => {
    const dir = tempDir();
    const run = await once('--state', join(dir, 'a'.repeat(100_000)));
    expectPlain(run, 'the path is too long (ENAMETOOLONG)', '--state');
    expect(run.stderr.length).toBeLessThan(2000);
  });

  it('in $XDG_STATE_HOME under a regular file: names the setting', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const run = await runWatch(
      ['--once', '--since', '0'],
      watchEnv(sandbox, { XDG_STATE_HOME: join(dir, 'file') }),
      30_000,
    );
    expectPlain(run, 'not a folder', 'XDG_STATE_HOME');
  });

  it('in a folder this user cannot write (as nobody): names the folder and the fix', async () => {
    // The root folder: one nobody can read but not write, and no test file is ever left in it.
    const run = await runAsNobody(['watch', '--once', '--state', '/mf-s.json'], watchEnv(sandbox));
    expectPlain(run, 'permission denied (EACCES)', 'the folder /', '--state');
  });
});

describe('a state file that cannot be saved', () => {
  it('immutable (chattr +i): found before delivering, so nothing is delivered twice', async () => {
    needRoot();
    const dir = tempDir();
    const state = join(dir, 's.json');
    const jsonl = join(dir, 'o.jsonl');
    writeFileSync(
      state,
      `${JSON.stringify({ version: 1, cursor: 0, service: sandbox.url, filters: {}, delivered: 0, updatedAt: '' })}\n`,
    );
    execFileSync('chattr', ['+i', state]);
    try {
      const run = await once('--state', state, '--jsonl', jsonl);
      expectPlain(run, state, 'operation not permitted (EPERM)', 'lsattr');
      expect(existsSync(jsonl) ? readFileSync(jsonl, 'utf8') : '').toBe('');
    } finally {
      execFileSync('chattr', ['-i', state]);
    }
  });
});

describe('--jsonl', () => {
  it("another user's file (a shared log, say) is appended to: the owner rule is for our own state", async () => {
    needRoot();
    const dir = tempDir();
    const jsonl = join(dir, 'shared.jsonl');
    writeFileSync(jsonl, '');
    execFileSync('chown', ['1001:1001', jsonl]);
    const run = await once('--state', join(dir, 's.json'), '--jsonl', jsonl);
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n');
    expect(lines.length).toBe((await feedIds(sandbox)).length);
  });

  it('on a read-only disk: names the file, and is not retried', async () => {
    const dir = tempDir();
    const ro = tmpfs(join(dir, 'ro'), { readOnly: true });
    const run = await once('--state', join(dir, 's.json'), '--jsonl', join(ro, 'o.jsonl'));
    expectPlain(run, join(ro, 'o.jsonl'), 'read-only (EROFS)', '--jsonl');
  });

  it('with a name too long: says so, once and short', async () => {
    const dir = tempDir();
    const run = await once('--state', join(dir, 's.json'), '--jsonl', join(dir, 'c'.repeat(100_000)));
    expectPlain(run, 'the path is too long (ENAMETOOLONG)', '--jsonl');
    expect(run.stderr.length).toBeLessThan(2000);
  });

  it('past the file-size limit (ulimit -f): says so, and is not retried', async () => {
    const dir = tempDir();
    const run = await new Promise<Output>((resolve) => {
      const child = spawn(
        'sh',
        [
          '-c',
          'ulimit -f 8 && exec "$@"',
          'sh',
          NODE,
          BIN,
          'watch',
          '--once',
          '--since',
          '0',
          '--state',
          join(dir, 's.json'),
          '--jsonl',
          join(dir, 'o.jsonl'),
        ],
        { env: watchEnv(sandbox) },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('exit', (code) => resolve({ code, stdout: '', stderr }));
    });
    expectPlain(run, join(dir, 'o.jsonl'), 'larger than this process may write (EFBIG)', 'ulimit -f');
    expect(run.stderr).not.toContain('trying again');
  });

  it('a folder at its path: says it is a folder', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'o.jsonl'));
    expectPlain(
      await once('--state', join(dir, 's.json'), '--jsonl', join(dir, 'o.jsonl')),
      join(dir, 'o.jsonl'),
      'folder',
    );
  });

  it('on a disk that fills: the disk is full, and the cursor stays', async () => {
    const dir = tempDir();
    const full = fullTmpfs(join(dir, 'full'));
    const run = await once(
      '--state',
      join(dir, 's.json'),
      '--jsonl',
      join(full, 'o.jsonl'),
      '--max-attempts',
      '1',
    );
    expectPlain(run, join(full, 'o.jsonl'), 'the disk is full (ENOSPC)');
  });

  it('append-only (chattr +a) on a disk that fills mid-page: says the part written stays, and the next run closes its cut line', async () => {
    const dir = tempDir();
    const disk = tmpfs(join(dir, 'disk'), { size: '512k' });
    const jsonl = join(disk, 'o.jsonl');
    writeFileSync(jsonl, '');
    execFileSync('chattr', ['+a', jsonl]);
    try {
      // Room for part of the page only.
      const filler = join(fullTmpfsIn(disk), 'filler');
      truncateSync(filler, statSync(filler).size - 16_384);
      const flags = ['--state', join(dir, 's.json'), '--jsonl', jsonl, '--max-attempts', '1'];
      const run = await once(...flags);
      expectPlain(run, 'the disk is full (ENOSPC)');
      expect(run.stderr).toMatch(/could not take back the \d+ bytes of a failed page appended to .*o\.jsonl/);
      rmSync(filler);
      const again = await once(...flags);
      expect(again.code, again.stderr).toBe(0);
      // The cut line stays (the file only grows), closed: every line after it parses.
      const lines = readFileSync(jsonl, 'utf8').split('\n').filter(Boolean);
      const parses = (line: string) => {
        try {
          JSON.parse(line);
          return true;
        } catch {
          return false;
        }
      };
      expect(lines.filter((line) => !parses(line))).toHaveLength(1);
      const all = (await feedIds(sandbox)).length;
      expect(lines.slice(-all).every(parses)).toBe(true);
    } finally {
      execFileSync('chattr', ['-a', jsonl]);
    }
  });
});

describe('--atom', () => {
  it('in a folder that cannot be made (/proc): ends at once with a plain message', async () => {
    const dir = tempDir();
    const run = await once(
      '--state',
      join(dir, 's.json'),
      '--atom',
      '/proc/nope/feed.xml',
      '--max-attempts',
      '1',
    );
    expectPlain(run, '/proc/nope');
  });

  it('on a read-only disk: is not retried, even with the default attempts', async () => {
    const dir = tempDir();
    const ro = tmpfs(join(dir, 'ro'), { readOnly: true });
    const run = await once('--state', join(dir, 's.json'), '--atom', join(ro, 'f.atom'));
    expectPlain(run, join(ro, 'f.atom'), 'read-only (EROFS)', '--atom');
    expect(run.stderr).not.toContain('trying again');
  });

  it('with a name too long: the name is not repeated in every line', async () => {
    const dir = tempDir();
    const run = await once('--state', join(dir, 's.json'), '--atom', join(dir, 'b'.repeat(100_000)));
    expectPlain(run, 'the path is too long (ENAMETOOLONG)');
    expect(run.stderr.length).toBeLessThan(4000);
  });
});
