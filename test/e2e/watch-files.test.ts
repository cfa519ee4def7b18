/**
 * What `watch` does when its files change under it: a jsonl moved away by log rotation, an Atom
 * file shared by two watchers, a damaged state file. The built CLI against the sandbox.
 */

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { eventually, spawnRaw } from './harness.js';
import { envelopes, feedIds, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const lines = (path: string): number =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;

describe('--jsonl and log rotation', () => {
  it('writes to the path it was given after the file there is moved away or replaced', async () => {
    const dir = tempDir();
    const file = join(dir, 'o.jsonl');
    const all = (await feedIds(sandbox)).length;
    const watcher = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--interval',
      '1',
      '--since',
      '0',
      '--state',
      join(dir, 's.json'),
      '--jsonl',
      file,
    ]);
    try {
      await eventually(() => lines(file) === all, `the first ${all} changes in ${file}`, 20_000);
      // logrotate's default: the file is renamed, and (with `compress`) the renamed copy deleted.
      renameSync(file, `${file}.1`);
      const first = sandbox.publish('price_change');
      await eventually(
        () => lines(file) === 1,
        `a new ${file} with the change published after the move`,
        20_000,
      );
      expect(envelopes(readFileSync(file, 'utf8'))[0]?.data.id).toBe(first.id);
      expect(lines(`${file}.1`)).toBe(all);

      // copytruncate's cousin: another file put in its place.
      writeFileSync(`${file}.new`, '');
      renameSync(`${file}.new`, file);
      const second = sandbox.publish('price_change');
      await eventually(() => lines(file) === 1, `the change published after the swap in ${file}`, 20_000);
      expect(envelopes(readFileSync(file, 'utf8'))[0]?.data.id).toBe(second.id);
    } finally {
      watcher.child.kill('SIGTERM');
      await watcher.exited;
    }
    expect(watcher.stderr()).not.toContain('Internal error');
    rmSync(`${file}.1`);
  }, 90_000);
});
