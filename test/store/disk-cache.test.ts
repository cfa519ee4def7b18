import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskCache } from '../../src/store/disk-cache.js';
import { tempFolder } from '../support/temp.js';

const folder = () => join(tempFolder('mf-disk-'), 'model-feed-mcp');
const cache = (dir: string, now = () => Date.now()) =>
  new DiskCache({ folder: dir, baseUrl: 'https://feed.test', apiKey: 'mfsk_disk_cache_key_01', now });

describe('the disk cache', () => {
  it('round-trips an answer, never writes the key, and keeps files user-only', async () => {
    const dir = folder();
    await cache(dir).write('/api/v1/models?', { items: [], total: 0 });
    expect(await cache(dir).read('/api/v1/models?')).toMatchObject({ body: { items: [], total: 0 } });
    for (const name of readdirSync(dir)) {
      expect(name).not.toContain('mfsk_');
      expect(readFileSync(join(dir, name), 'utf8')).not.toContain('mfsk_disk_cache_key_01');
    }
  });

  it('drops an entry stored "in the future" (a clock set back): it would pass for fresh', async () => {
    const dir = folder();
    const later = Date.now() + 30 * 86_400_000;
    await cache(dir, () => later).write('/api/v1/models?', { items: [], total: 0 });
    expect(await cache(dir).read('/api/v1/models?')).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes temp files that killed writers left, once they are old, and leaves a fresh one alone', async () => {
    const dir = folder();
    const shared = cache(dir);
    await shared.write('/api/v1/models?', { items: [], total: 0 });
    const [name] = readdirSync(dir);
    const stale = join(dir, `.${name}.4242.0badf00d.tmp`);
    const fresh = join(dir, `.${name}.4343.0000beef.tmp`);
    writeFileSync(stale, '{"half');
    writeFileSync(fresh, '{"half');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    await shared.write('/api/v1/models?vendor=openai', { items: [], total: 0 });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it('a 429 file that is not a small regular file (a FIFO, a huge file) is dropped, never waited on', async () => {
    const dir = folder();
    const shared = cache(dir);
    await shared.writeLimit({ retryAt: Date.now() + 60_000, serviceMessage: 'limit', rateLimit: undefined });
    const [name] = readdirSync(dir);
    const path = join(dir, name as string);
    expect((await shared.readLimit())?.serviceMessage).toBe('limit');

    execFileSync('rm', [path]);
    execFileSync('mkfifo', [path]);
    expect(await shared.readLimit()).toBeUndefined();
    expect(existsSync(path)).toBe(false);

    writeFileSync(path, `{"v":1,"retryAt":${Date.now() + 60_000},"pad":"${'x'.repeat(100_000)}"}`);
    expect(await shared.readLimit()).toBeUndefined();
  });

  it('a 429 record from "the future" or beyond 26 h is dropped, never a freeze of every call', async () => {
    const dir = folder();
    const now = Date.now();
    const hour = 3_600_000;
    // Written before the clock stepped back 10 h: its wait looks fine, but it was stored "after now".
    await cache(dir, () => now + 10 * hour).writeLimit({
      retryAt: now + 11 * hour,
      serviceMessage: 'limit',
      rateLimit: undefined,
    });
    expect(await cache(dir).readLimit()).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);

    // A stray record (or one from a clock a year ahead) whose wait is longer than any retry-after allowed.
    await cache(dir).writeLimit({
      retryAt: now + 30 * 24 * hour,
      serviceMessage: 'limit',
      rateLimit: undefined,
    });
    const [name] = readdirSync(dir);
    expect(await cache(dir).readLimit()).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(join(dir, name as string), JSON.stringify({ v: 1, retryAt: now + 30 * 24 * hour }));
    expect(await cache(dir).readLimit()).toBeUndefined();

    // Up to 26 h ahead, stored now: honoured.
    await cache(dir).writeLimit({ retryAt: now + 26 * hour, serviceMessage: 'limit', rateLimit: undefined });
    expect((await cache(dir).readLimit())?.retryAt).toBe(now + 26 * hour);
  });
});
