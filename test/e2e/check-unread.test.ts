/**
 * `check` never passes what it did not read: a checkout of another user's is read (CI containers run
 * as root over a checkout owned by the runner's uid); a file or folder it cannot read, a path that
 * is not there (or is not a file or folder), and a run that found no file at all fail with exit 2
 * and a reason, unless --allow-unread says the user accepts it.
 */

import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { runAsNobody } from './as-nobody.js';
import { run, scrubbedEnv } from './harness.js';

const OTHER_UID = 1001;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

function requireRoot(): void {
  if (process.getuid?.() !== 0) throw new Error('this test changes owners: run it as root (CI does)');
}

const env = () => scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });

/** A tree of the given files, in a folder that every user may enter. */
function makeTree(files: Record<string, string>): string {
  const tree = tempFolder('mf-unread-');
  chmodSync(tree, 0o755);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), content);
  }
  return tree;
}

function chownTree(tree: string, uid: number, paths: string[]): void {
  for (const path of paths) chownSync(join(tree, path), uid, uid);
}

const NEAR_MISS = 'MODEL = "openai/gpt-4o-transcribe"\n';

describe('check reads what it is given, or fails saying what it did not read', () => {
  it("another user's tree is read: its findings are reported", async () => {
    requireRoot();
    const tree = makeTree({ 'src/app.py': NEAR_MISS, 'README.md': 'nothing here\n' });
    chownTree(tree, OTHER_UID, ['.', 'src', 'src/app.py', 'README.md']);
    const result = await run(['check', '--format', 'json', '.'], env(), { cwd: tree });
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({ scanned: 2, references: 1, findings: { not_listed: 1 } });
    expect(report.references[0]).toMatchObject({ path: 'src/app.py', line: 1, column: 10 });
  });

  it('a folder and a file it cannot read are named, and the run fails with exit 2', async () => {
    requireRoot();
    const tree = makeTree({
      'ok.py': NEAR_MISS,
      'private/secret.py': NEAR_MISS,
      'locked.py': NEAR_MISS,
    });
    chownTree(tree, OTHER_UID, ['private', 'private/secret.py', 'locked.py']);
    chmodSync(join(tree, 'private'), 0o700);
    chmodSync(join(tree, 'locked.py'), 0o600);
    const result = await runAsNobody(['check', '.'], env(), tree);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('could not read 2 files or folders');
    expect(result.stderr).toContain('locked.py: permission denied (EACCES)');
    expect(result.stderr).toContain('private: permission denied (EACCES)');
    expect(result.stderr).toContain('--allow-unread');
    // The report is still given, with what it did read.
    expect(result.stdout).toContain('ok.py:1:10');
    expect(result.stdout).toContain('2 unreadable');

    const allowed = await runAsNobody(['check', '--allow-unread', '--format', 'json', '.'], env(), tree);
    expect(allowed.code, allowed.stderr).toBe(1);
    const report = JSON.parse(allowed.stdout);
    expect(report.summary).toMatchObject({ scanned: 1, unreadable: 2 });
    // Folders are named as the walk finds them, files as they are read: in no order to rely on.
    expect(
      report.summary.unread.sort((a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path)),
    ).toEqual([
      { path: 'locked.py', reason: 'permission denied (EACCES)' },
      { path: 'private', reason: 'permission denied (EACCES)' },
    ]);
  });

  it('a path that does not exist, -, or one that is not a file or folder: exit 2, named', async () => {
    const tree = makeTree({ 'ok.py': NEAR_MISS });
    const missing = await run(['check', 'ok.py', 'srcc'], env(), { cwd: tree });
    expect(missing.code, missing.stdout).toBe(2);
    expect(missing.stderr).toContain('srcc: does not exist');
    expect(missing.stdout).toBe('');

    const dash = await run(['check', '-'], env(), { cwd: tree, input: NEAR_MISS });
    expect(dash.code, dash.stdout).toBe(2);
    expect(dash.stderr).toContain('-: does not exist');
    expect(dash.stderr).toContain('standard input is not read');

    const stdin = await run(['check', '/dev/stdin'], env(), { cwd: tree, input: NEAR_MISS });
    expect(stdin.code, stdin.stdout).toBe(2);
    // The harness's stdin is a socket pair, a shell's pipe a FIFO: either is refused by what it is.
    expect(stdin.stderr).toContain('/dev/stdin: not a file or folder (a socket)');
    execFileSync('mkfifo', [join(tree, 'fifo')]);
    const fifo = await run(['check', 'fifo'], env(), { cwd: tree });
    expect(fifo.code, fifo.stdout).toBe(2);
    expect(fifo.stderr).toContain('fifo: not a file or folder (a FIFO)');

    // An unset variable in quotes: it would have scanned the folder check ran in.
    const empty = await run(['check', 'ok.py', ''], env(), { cwd: tree });
    expect(empty.code, empty.stdout).toBe(2);
    expect(empty.stderr).toContain('one was given empty ("")');

    const allowed = await run(['check', '--allow-unread', 'ok.py', 'srcc'], env(), { cwd: tree });
    expect(allowed.code, allowed.stderr).toBe(1);
    expect(allowed.stdout).toContain('1 unreadable');
    expect(allowed.stdout).toContain('Not read: srcc (does not exist).');
    const sarif = await run(['check', '--allow-unread', '--format', 'sarif', 'ok.py', 'srcc'], env(), {
      cwd: tree,
    });
    const [invocation] = JSON.parse(sarif.stdout).runs[0].invocations;
    expect(invocation).toEqual({
      executionSuccessful: false,
      toolExecutionNotifications: [{ level: 'error', message: { text: 'not read: srcc: does not exist' } }],
    });
  });

  it('a tree with no file to scan fails with exit 2, unless allowed', async () => {
    const tree = makeTree({ '.gitignore': '*\n' });
    mkdirSync(join(tree, 'empty'));
    const empty = await run(['check', 'empty'], env(), { cwd: tree });
    expect(empty.code, empty.stdout).toBe(2);
    expect(empty.stderr).toContain('found no file to scan under empty');
    // The report's own verdict agrees with the exit code: no "Passed" above a failing run.
    expect(empty.stdout).not.toContain('Passed');
    expect(empty.stdout).toContain('Not passed: check did not read all it was given');

    const allowed = await run(['check', '--allow-unread', 'empty'], env(), { cwd: tree });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('0 files scanned');
    expect(allowed.stdout).toContain('Passed');
  });
});
