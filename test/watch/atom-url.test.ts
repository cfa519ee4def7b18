/** `--atom-url`: the Atom feed's own address, checked with the other watch flags. */

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseWatchFlags, type WatchFlags } from '../../src/watch/options.js';

const context = { cwd: '/work', env: {}, secrets: ['mfsk_secret_key_0123456789'] };
const parse = (flags: WatchFlags) => parseWatchFlags(flags, context);

/** The ConfigError a parse throws. */
function failure(flags: WatchFlags): ConfigError {
  try {
    parse(flags);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('--atom-url', () => {
  it('is kept, normalised, with --atom', () => {
    expect(parse({ atom: 'feed.atom', atomUrl: ' https://example.com/feeds/changes.atom ' }).sink).toEqual({
      kind: 'atom',
      path: '/work/feed.atom',
      selfUrl: 'https://example.com/feeds/changes.atom',
    });
    expect(parse({ atom: 'feed.atom', atomUrl: 'http://EXAMPLE.com:8080' }).sink).toMatchObject({
      selfUrl: 'http://example.com:8080/',
    });
    expect(parse({ atom: 'feed.atom' }).sink).toEqual({ kind: 'atom', path: '/work/feed.atom' });
  });

  it.each([
    ['/feeds/changes.atom', 'must be an absolute http(s) URL'],
    ['example.com/changes.atom', 'must be an absolute http(s) URL'],
    ['ftp://example.com/changes.atom', 'must be an absolute http(s) URL'],
    ['file:///srv/changes.atom', 'must be an absolute http(s) URL'],
    ['', 'must be an absolute http(s) URL'],
  ])('refuses %j with a message naming the flag and the value', (raw, message) => {
    const error = failure({ atom: 'feed.atom', atomUrl: raw });
    expect(error.flag).toBe('--atom-url');
    expect(error.message).toBe(
      `--atom-url ${message}, the address feed readers fetch the feed from, e.g. https://example.com/changes.atom; got "${raw}".`,
    );
  });

  it('hides a key pasted into it, and applies only with --atom', () => {
    const pasted = failure({ atom: 'feed.atom', atomUrl: 'mfsk_secret_key_0123456789' });
    expect(pasted.message).not.toContain('mfsk_secret_key_0123456789');
    const alone = failure({ jsonl: 'out.jsonl', atomUrl: 'https://example.com/changes.atom' });
    expect(alone.flag).toBe('--atom-url');
    expect(alone.message).toBe('--atom-url applies only with --atom <file>.');
    const credentials = failure({ atom: 'feed.atom', atomUrl: 'https://reader:hunter2@example.com/a' });
    expect(credentials.message).toBe('--atom-url is published in the feed: leave credentials out of it.');
  });
});
