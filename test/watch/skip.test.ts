/** `watch --skip <change id>`: the flag, and the record of skips the state file keeps. */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseWatchFlags, type WatchFlags } from '../../src/watch/options.js';
import { MAX_SKIPPED, readState, saveState, type WatchState, withSkip } from '../../src/watch/state.js';
import { tempFolder } from '../support/temp.js';

const context = { cwd: '/work', env: {}, secrets: ['mfsk_secret_key_0123456789'] };
const parse = (flags: WatchFlags) => parseWatchFlags(flags, context);

const state: WatchState = {
  cursor: 42,
  service: 'https://feed.test',
  filters: {},
  delivered: 3,
  updatedAt: '2026-07-01T00:00:00.000Z',
};

describe('--skip', () => {
  it('takes a change id as the watcher names it, trimmed; none by default', () => {
    expect(parse({ skip: ' 3f2b9c1e-7a4d-4c1b-9e8f-0a1b2c3d4e5f ' }).skip).toBe(
      '3f2b9c1e-7a4d-4c1b-9e8f-0a1b2c3d4e5f',
    );
    expect(parse({}).skip).toBeUndefined();
  });

  it('refuses what cannot be a change id, naming the flag, without echoing a secret', () => {
    for (const raw of ['', 'evt 1', 'evt;rm', 'x'.repeat(200)]) {
      expect(() => parse({ skip: raw }), raw).toThrow(ConfigError);
    }
    expect(() => parse({ skip: 'mfsk_secret_key_0123456789 x' })).toThrow(
      /^--skip must be the id of the change/,
    );
    expect(() => parse({ skip: 'mfsk_secret_key_0123456789 x' })).not.toThrow(/mfsk_secret/);
  });
});

describe('skips in the state file', () => {
  const change = { id: 'evt-1', changeTime: 43, reason: 'a string of 150000 characters' };

  it('are recorded and read back; a file written before skips existed still loads, without them', async () => {
    const path = join(tempFolder('mf-skip-'), 'state.json');
    await saveState(path, state);
    expect(await readState(path)).toEqual(state);
    const skipped = withSkip(state, change, '2026-07-01T00:00:01.000Z');
    await saveState(path, skipped);
    expect((await readState(path))?.skipped).toEqual([{ ...change, at: '2026-07-01T00:00:01.000Z' }]);
  });

  it('keep the last few, with their reasons made one bounded line', () => {
    let next = state;
    for (let i = 0; i < MAX_SKIPPED + 5; i++) {
      next = withSkip(next, { ...change, id: `evt-${i}`, reason: `line\nbreak ${'x'.repeat(1000)}` }, 'now');
    }
    expect(next.skipped).toHaveLength(MAX_SKIPPED);
    expect(next.skipped?.[0]?.id).toBe('evt-5');
    expect(next.skipped?.[0]?.reason).not.toContain('\n');
    expect(next.skipped?.[0]?.reason.length).toBeLessThanOrEqual(300);
  });

  it('an entry this version could not have written is left out, not trusted', async () => {
    const path = join(tempFolder('mf-skip-'), 'state.json');
    const good = { ...change, at: 'then' };
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        cursor: 42,
        skipped: [good, { id: 'evt 2\x1b[2J', changeTime: 1, reason: '', at: '' }, 7],
      }),
    );
    expect((await readState(path))?.skipped).toEqual([good]);
  });
});
