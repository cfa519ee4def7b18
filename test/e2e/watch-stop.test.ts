/**
 * What a watcher says when it is stopped: between polls it abandons nothing, and says nothing of
 * the kind; under --sandbox no cursor is kept, so nothing is "made again next time".
 */

import { describe, expect, it } from 'vitest';
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
});
