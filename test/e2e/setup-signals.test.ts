/**
 * `setup` stopped part-way: by SIGINT (Ctrl-C), SIGTERM or SIGHUP during a write, by `kill -9`, or
 * by a signal at the hidden key prompt. The built CLI, with strace widening the write's window
 * (fsync delayed) so that the signal lands inside it. No temp file (it may hold the key) outlives
 * the run, a change made is reported, and the terminal gets its echo back.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { spawnPty } from '../support/pty.js';
import { tempFolder } from '../support/temp.js';
import { BIN, eventually, NODE, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const CURSOR = '{\n  "mcpServers": {}\n}\n';

function cursorHome(): { home: string; folder: string; path: string } {
  const home = tempFolder('mf-setup-signals-');
  const folder = join(home, '.cursor');
  const path = join(folder, 'mcp.json');
  mkdirSync(folder);
  writeFileSync(path, CURSOR);
  chmodSync(path, 0o600);
  return { home, folder, path };
}

function envFor(home: string): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', MODEL_FEED_BASE_URL: sandbox.url });
}

/** The pids of the processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim())
      .map(Number);
  } catch {
    return [];
  }
}

const tempFiles = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.tmp'));

interface Traced {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `setup --client cursor` with the key on stdin, under strace, which holds fsync for `delayS`
 * seconds: the temp file's, before the rename, and the folder's, after it. `held`: which fsyncs of
 * each thread, by strace's count (`1`: the first; `1+`: all).
 */
function tracedSetup(home: string, delayS: number, held: '1' | '1+'): Traced {
  const child = spawn(
    'strace',
    [
      '-f',
      '-qq',
      '-o',
      '/dev/null',
      // Only fsync is stopped at: the fewer stops, the more surely the delay lands.
      '-e',
      'trace=fsync',
      '-e',
      `inject=fsync:delay_enter=${delayS * 1_000_000}:when=${held}`,
      NODE,
      BIN,
      'setup',
      '--client',
      'cursor',
    ],
    { env: envFor(home), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => {
    output.stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output.stderr += c.toString();
  });
  child.stdin!.end(`${sandbox.key}\n`);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exited };
}

interface Stopped extends Traced {
  home: string;
  folder: string;
  path: string;
}

/**
 * Runs a traced setup and sends `signal` to it once `inWindow` holds. The delay does not always
 * land (a worker thread whose first fsync was another file's is not held): a run that ended before
 * the signal could be sent proves nothing, and is made again, a bounded number of times.
 */
async function signalInsideWrite(
  /** 0: none is sent (the process is only checked to be there). */
  signal: NodeJS.Signals | 0,
  { delayS, held }: { delayS: number; held: '1' | '1+' },
  inWindow: (folder: string, path: string) => boolean,
): Promise<Stopped> {
  for (let attempt = 1; ; attempt++) {
    const { home, folder, path } = cursorHome();
    const traced = tracedSetup(home, delayS, held);
    let ended = false;
    void traced.exited.then(() => {
      ended = true;
    });
    let node: number | undefined;
    await eventually(
      () => {
        node ??= childrenOf(traced.child.pid!)[0];
        return ended || (node !== undefined && inWindow(folder, path));
      },
      'the write',
      30_000,
    );
    try {
      if (ended) throw new Error('ended before the signal');
      process.kill(node!, signal);
      return { ...traced, home, folder, path };
    } catch (error) {
      traced.child.kill('SIGKILL');
      await traced.exited;
      if (attempt === 5) throw new Error(`the write's window was missed 5 times: ${String(error)}`);
    }
  }
}

const EXIT_BY: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

describe('a signal during the write', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s before the rename: the temp file is removed, the file and folder are as they were, and it says so',
    async (signal) => {
      const stopped = await signalInsideWrite(
        signal,
        { delayS: 4, held: '1' },
        (folder) => tempFiles(folder).length > 0,
      );
      try {
        const { code } = await stopped.exited;
        expect(code, stopped.output.stderr).toBe(EXIT_BY[signal]);
        expect(readdirSync(stopped.folder)).toEqual(['mcp.json']);
        expect(readFileSync(stopped.path, 'utf8')).toBe(CURSOR);
        expect(stopped.output.stderr).toContain(`stopped by ${signal}`);
        expect(stopped.output.stderr).toContain(`${stopped.path} left unchanged`);
        expect(stopped.output.stdout).not.toContain('added model-feed');
      } finally {
        stopped.child.kill('SIGKILL');
      }
    },
    120_000,
  );

  // Every fsync held: the folder's, after the rename, may come from a thread that did one before.
  it('SIGINT after the rename: the change made is reported, and no temp file is left', async () => {
    const stopped = await signalInsideWrite('SIGINT', { delayS: 4, held: '1+' }, (_folder, path) =>
      readFileSync(path, 'utf8').includes(sandbox.key),
    );
    try {
      const { code } = await stopped.exited;
      expect(code, stopped.output.stderr).toBe(130);
      expect(stopped.output.stdout).toContain(`Cursor: added model-feed to ${stopped.path}`);
      expect(stopped.output.stderr).toContain('stopped by SIGINT');
      expect(tempFiles(stopped.folder)).toEqual([]);
    } finally {
      stopped.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('a temp file left by a run killed with kill -9', () => {
  it.each([
    ['--remove', ['--remove']],
    ['the next setup', []],
  ])(
    '%s deletes it (it holds the key) and names it',
    async (_name, args) => {
      const holdsKey = (folder: string): boolean =>
        tempFiles(folder).some((name) => readFileSync(join(folder, name), 'utf8').includes(sandbox.key));
      const stopped = await signalInsideWrite('SIGKILL', { delayS: 4, held: '1' }, holdsKey);
      await stopped.exited;
      const { home, folder } = stopped;
      const [left] = tempFiles(folder);
      expect(left).toMatch(/^\.mcp\.json\.\d+\.[0-9a-f]{8}\.tmp$/);
      const next = await run(['setup', '--client', 'cursor', ...args], envFor(home), {
        input: `${sandbox.key}\n`,
      });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toContain(`deleted ${join(folder, left!)}, left by a setup that was stopped`);
      expect(tempFiles(folder)).toEqual([]);
      if (args.length) {
        for (const name of readdirSync(folder)) {
          expect(readFileSync(join(folder, name), 'utf8'), name).not.toContain(sandbox.key);
        }
      }
    },
    120_000,
  );

  it("leaves a temp file of a setup still running, and any other file's", async () => {
    const { home, folder } = cursorHome();
    const running = `.mcp.json.${process.pid}.0123abcd.tmp`;
    const unrelated = '.other.json.1.0123abcd.tmp';
    writeFileSync(join(folder, running), 'x');
    writeFileSync(join(folder, unrelated), 'x');
    const next = await run(['setup', '--client', 'cursor', '--remove'], envFor(home));
    expect(next.code, next.stderr).toBe(0);
    expect(tempFiles(folder).sort()).toEqual([running, unrelated].sort());
  });
});

describe('another program writing the file while setup edits it', () => {
  it("is noticed before the rename: its version is kept, setup's is not written, and it says so", async () => {
    const theirs = '{\n  "mcpServers": { "theirs": { "command": "x" } }\n}\n';
    // No signal: the window is used to write the file as another program would.
    const stopped = await signalInsideWrite(
      0 as unknown as NodeJS.Signals,
      { delayS: 4, held: '1' },
      (folder, path) => {
        if (tempFiles(folder).length === 0) return false;
        writeFileSync(path, theirs);
        return true;
      },
    );
    try {
      const { code } = await stopped.exited;
      expect(code, stopped.output.stderr).toBe(1);
      expect(readFileSync(stopped.path, 'utf8')).toBe(theirs);
      expect(readdirSync(stopped.folder)).toEqual(['mcp.json']);
      expect(stopped.output.stderr).toContain(
        `Cursor: ${stopped.path} was changed by another program while setup was editing it; left that version as it is. Run setup again to add model-feed to it.`,
      );
    } finally {
      stopped.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('the terminal after a signal at the hidden key prompt', () => {
  it.each(['SIGHUP', 'SIGTERM', 'SIGINT'] as const)(
    '%s: the terminal has its echo back, under sh (which does not restore it)',
    async (signal) => {
      const home = tempFolder('mf-setup-signals-');
      mkdirSync(join(home, '.cursor'));
      const script = `echo "SH=$$"; '${NODE}' '${BIN}' setup --client cursor --base-url '${sandbox.url}'; echo "EXIT=$?"; stty -a`;
      const pty = spawnPty(['sh', '-c', script], {
        env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
      });
      try {
        await pty.waitFor('API key');
        const sh = Number(/SH=(\d+)/.exec(pty.output())![1]);
        const [node] = childrenOf(sh);
        expect(node).toBeDefined();
        process.kill(node!, signal);
        await pty.waitFor(/EXIT=\d+[\s\S]*speed/);
        const stty = pty.output().slice(pty.output().indexOf('EXIT='));
        expect(stty).toMatch(/(^|\s)echo(\s|$)/m);
        expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
        expect(stty).not.toMatch(/-echo\s/);
        expect(pty.output()).toContain(`model-feed-mcp setup: stopped by ${signal}; nothing was written.`);
        expect(pty.output()).toContain(`EXIT=${EXIT_BY[signal]}`);
      } finally {
        await pty.close();
      }
    },
    30_000,
  );
});
