/**
 * What a watcher says when it is stopped: between polls it abandons nothing, and says nothing of
 * the kind; under --sandbox no cursor is kept, so nothing is "made again next time".
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';
import { eventually, scrubbedEnv, spawnRaw } from './harness.js';

describe('watch, stopped', () => {
  it('between polls: "stopping", with no delivery said to be abandoned', async () => {
    // Sample data, a poll every 60 s: after the first poll's line it sits idle.
    const watcher = spawnRaw(scrubbedEnv(), ['watch', '--sandbox', '--since', 'now', '--interval', '60']);
    try {
      await eventually(() => /polling every 60 s/.test(watcher.stderr()), 'the first poll');
      watcher.child.kill('SIGINT');
      const exit = await watcher.exited;
      expect(exit.code).toBe(0);
      expect(watcher.stderr()).toMatch(/stopping\n/);
      expect(watcher.stderr()).not.toContain('abandoned');
      expect(watcher.stderr()).not.toContain('next time');
    } finally {
      watcher.child.kill('SIGKILL');
    }
  });

  it('under --sandbox mid-delivery: the delivery is abandoned, and nothing is promised for a next run', async () => {
    // A command that outlasts the first delivery, and says when it runs: the stop comes meanwhile.
    const started = join(tempFolder('mf-watch-stop-'), 'started');
    const watcher = spawnRaw(scrubbedEnv(), [
      'watch',
      '--sandbox',
      '--since',
      '0',
      '--exec',
      `touch ${started}; sleep 30`,
    ]);
    try {
      await eventually(() => existsSync(started), 'the command to run');
      watcher.child.kill('SIGTERM');
      const exit = await watcher.exited;
      expect(exit.code).toBe(0);
      expect(watcher.stderr()).toContain(
        'stopping: the delivery in progress is abandoned (this run keeps no cursor)\n',
      );
      expect(watcher.stderr()).not.toMatch(/next run|next time|again/);
    } finally {
      watcher.child.kill('SIGKILL');
    }
  });

  it('under --sandbox, a delivery given up on: no cursor stays, so the message promises no next run', async () => {
    const watcher = spawnRaw(scrubbedEnv(), [
      'watch',
      '--sandbox',
      '--since',
      '0',
      '--exec',
      'exit 3',
      '--max-attempts',
      '1',
    ]);
    try {
      const exit = await watcher.exited;
      expect(exit.code).toBe(1);
      const last = watcher.stderr().trimEnd().split('\n').at(-1);
      expect(last).toMatch(
        /^model-feed-mcp: delivery of change \S+ to exec exit … failed \(1 attempt\): exec exit … exited with code 3\. This run keeps no cursor, so the next one starts from --since again, not from this change: fix the sink and run again\.$/,
      );
      expect(last).not.toContain('cursor stays');
    } finally {
      watcher.child.kill('SIGKILL');
    }
  });
});
