/**
 * No orphans: an MCP client that dies without closing the server's stdin (a crash, a SIGKILL, while
 * a grandchild or a sibling still holds the pipe) must not leave the server running for ever.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, INITIALIZE, NODE, scrubbedEnv } from './harness.js';

/**
 * The MCP client stand-in: starts the server with its own stdin (a pipe whose write end the test
 * holds), prints the server's pid, and waits to be killed.
 */
const PARENT = `
const { spawn } = require('node:child_process');
const [node, bin] = process.argv.slice(1);
const server = spawn(node, [bin, '--sandbox', '--log-level', 'debug'], { stdio: 'inherit' });
process.stdout.write(JSON.stringify({ serverPid: server.pid }) + '\\n');
setInterval(() => {}, 60_000);
`;

/** Linux's view of a process: gone, or a zombie nobody has reaped yet, counts as exited. */
function hasExited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true;
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let parent: ChildProcess | undefined;
let serverPid: number | undefined;
let dir: string | undefined;
let stdinFd: number | undefined;

afterEach(() => {
  parent?.kill('SIGKILL');
  if (serverPid !== undefined && !hasExited(serverPid)) process.kill(serverPid, 'SIGKILL');
  if (stdinFd !== undefined) closeSync(stdinFd);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  parent = undefined;
  serverPid = undefined;
  stdinFd = undefined;
  dir = undefined;
});

/**
 * A pipe whose write end the test alone decides to close. Node destroys a child's `stdin` stream
 * when the child exits, which would end the server's input too; a FIFO opened read-write here
 * stays open whatever happens to the parent.
 */
function heldPipe(): number {
  dir = mkdtempSync(join(tmpdir(), 'orphan-'));
  const fifo = join(dir, 'stdin');
  execFileSync('mkfifo', [fifo]);
  // O_RDWR: opening a FIFO this way does not wait for the other end (Linux).
  stdinFd = openSync(fifo, 'r+');
  return stdinFd;
}

describe.skipIf(process.platform !== 'linux')('the parent process dies', () => {
  it('the server exits within 5 s although its stdin stays open', async () => {
    const stdin = heldPipe();
    const child = spawn(process.execPath, ['-e', PARENT, NODE, BIN], {
      env: scrubbedEnv(),
      stdio: [stdin, 'pipe', 'pipe'],
    });
    parent = child;
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const lines = () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    const pid = await waitFor('the server pid', 5000, () => lines().find((m) => 'serverPid' in m)?.serverPid);
    serverPid = pid as number;
    // Serving: it answered, so the watch on the parent is running.
    writeSync(stdin, `${INITIALIZE}\n`);
    await waitFor('the answer to initialize', 10_000, () => lines().find((m) => m.id === 0));

    child.kill('SIGKILL');
    const killedAt = performance.now();
    await waitFor(`server ${serverPid} to exit; stderr: ${err}`, 5000, () =>
      hasExited(serverPid!) ? true : undefined,
    );
    expect(performance.now() - killedAt).toBeLessThan(5000);
    expect(err).toContain('parent process exited');
    expect(err).not.toContain('stdin closed');
  });
});
