import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskCache } from '../../src/store/disk-cache.js';

const folder = () => join(mkdtempSync(join(tmpdir(), 'mf-disk-')), 'model-feed-mcp');
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
});
