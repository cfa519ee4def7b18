import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { lastResort, parentGone, settleWithin, watchParent } from '../../src/process-lifetime.js';

describe('the parent watch', () => {
  it('a parent that is still there is not gone; a changed parent id or a missing process is', () => {
    expect(parentGone(process.ppid)).toBe(false);
    expect(parentGone(process.ppid, 1)).toBe(true);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout;
    expect(parentGone(Number(dead), Number(dead))).toBe(true);
  });

  it('a parent owned by another user (EPERM) still counts as alive', () => {
    // pid 1 belongs to root: an unprivileged signal probe gets EPERM, a privileged one succeeds.
    expect(parentGone(1, 1)).toBe(false);
  });

  it('reports a parent change once, from a timer that does not hold the process open', async () => {
    let ppid = process.ppid;
    let calls = 0;
    const timer = watchParent(() => calls++, { intervalMs: 5, ppid: () => ppid });
    try {
      expect(timer?.hasRef()).toBe(false);
      await new Promise((r) => setTimeout(r, 30));
      expect(calls).toBe(0);
      ppid = 1;
      await new Promise((r) => setTimeout(r, 30));
      expect(calls).toBe(1);
    } finally {
      clearInterval(timer);
    }
  });
});

describe('the last-resort error handler', () => {
  it('logs one line, the message without a stack, and keeps serving', () => {
    const logs: string[] = [];
    const log = createLogger({ level: 'warn', format: 'text', write: (line) => logs.push(line) });
    const exits: number[] = [];
    const handle = lastResort(
      log,
      () => false,
      (code) => exits.push(code),
    );
    handle(new TypeError('x is not a function'));
    handle('a rejection that is not an Error');
    expect(logs).toEqual([
      'model-feed-mcp error: uncaught error, still serving error="TypeError: x is not a function"\n',
      'model-feed-mcp error: uncaught error, still serving error="a rejection that is not an Error"\n',
    ]);
    expect(exits).toEqual([]);
  });

  it('exits with status 1 once shutting down: an error there must neither hang nor pass for success', () => {
    const logs: string[] = [];
    const log = createLogger({ level: 'warn', format: 'text', write: (line) => logs.push(line) });
    const exits: number[] = [];
    lastResort(
      log,
      () => true,
      (code) => exits.push(code),
    )(new Error('late'));
    expect(logs).toEqual(['model-feed-mcp error: uncaught error during shutdown error="Error: late"\n']);
    expect(exits).toEqual([1]);
  });
});

describe('settleWithin', () => {
  it('resolves once every piece of work has settled, a rejection included', async () => {
    const order: string[] = [];
    let finish: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const settled = settleWithin(60_000, [slow, Promise.reject(new Error('released badly')), undefined]).then(
      () => order.push('settled'),
    );
    await new Promise((resolve) => setImmediate(resolve));
    order.push('work finishing');
    finish();
    await settled;
    expect(order).toEqual(['work finishing', 'settled']);
  });

  it('resolves after the budget when some work never settles', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      let done = false;
      void settleWithin(300, [new Promise(() => {})]).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(299);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
