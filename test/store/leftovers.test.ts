import { describe, expect, it } from 'vitest';
import { isLeftover, STALE_TEMP_MS, tempFileWriter } from '../../src/store/leftovers.js';

describe('temp files of ours', () => {
  it('are told by name: the atomic write’s and the lock’s, for this file only', () => {
    expect(tempFileWriter('.s.json.123.0a1b2c3d.tmp', 's.json')).toBe(123);
    expect(tempFileWriter('s.json.lock.45.ffff0000.tmp', 's.json')).toBe(45);
    expect(tempFileWriter('.s.json.123.0a1b2c3d.tmp', 's')).toBeUndefined();
    expect(tempFileWriter('.sxjson.123.0a1b2c3d.tmp', 's.json')).toBeUndefined();
    expect(tempFileWriter('s.json.lock.0123456789abcdef.takeover', 's.json')).toBeUndefined();
    expect(tempFileWriter('s.json', 's.json')).toBeUndefined();
  });

  it('are left over when their writer is gone (after a grace), or when old whoever wrote them', () => {
    const now = 10 * STALE_TEMP_MS;
    const gone = 999_999;
    expect(isLeftover(gone, now - 120_000, now)).toBe(true);
    // Just written: perhaps by a writer in another pid space.
    expect(isLeftover(gone, now - 1000, now)).toBe(false);
    expect(isLeftover(process.pid, now - 120_000, now)).toBe(false);
    expect(isLeftover(process.pid, now - STALE_TEMP_MS - 1, now)).toBe(true);
  });
});
