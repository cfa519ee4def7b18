/**
 * The one way a value from outside is shown (src/text/redact.ts): a key judged by its form, URLs
 * shortened to where they point, one line, a length cap, and a scan linear in the value's length.
 */

import { describe, expect, it } from 'vitest';
import {
  displayUrl,
  echoPath,
  echoUrl,
  echoValue,
  REDACTED,
  secretShapedTokens,
} from '../../src/text/redact.js';
import { runInWorker } from '../support/bounded-run.js';

/** The review's key shapes: letters only, letters and digits, with `"` and `\`, with `.` and `/`, our prefix. */
const KEYS = {
  L: 'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ',
  D: 'Q7mZp2LxV9cT4nRw8KbY3hJd6FsA1gUe5oNi0qWt',
  Q: 'k9Xq2"Tz4vL\\m8Rw3Ny"7Hs5Dp\\Qe6Gj1Fb"0Zc',
  dots: 'k9Xq2.Tz4vL/m8Rw3Ny.7Hs5Dp/Qe6Gj1Fb.0Zc',
  M: 'mfsk_live_7Hq2ZtLw9XcV4bNm8KpR3sJd6FgY',
};

/** Any 12 characters of the key, in any case. */
function showsPartOf(text: string, key: string): boolean {
  for (let i = 0; i + 12 <= key.length; i++) {
    if (text.toLowerCase().includes(key.slice(i, i + 12).toLowerCase())) return true;
  }
  return false;
}

describe('echoValue: a value that may be a key is not shown, whatever its characters', () => {
  for (const [shape, key] of Object.entries(KEYS)) {
    it(`key ${shape}: alone, in words, in a URL's path, query, fragment or user info`, () => {
      for (const value of [
        key,
        ` ${key} `,
        `Bearer ${key}`,
        `got ${key} here`,
        `http://127.0.0.1:9/?token=${key}`,
        `http://127.0.0.1:9/${key}`,
        `https://h.example/api#${key}`,
        `http://${key}@proxy.example:8080`,
        `http://${key}:8080`,
      ]) {
        const shown = echoValue(value, []);
        expect(showsPartOf(shown, key), `${JSON.stringify(value)} → ${shown}`).toBe(false);
      }
    });
  }

  it('keeps what cannot be a key: short words, numbers, a host and a path', () => {
    expect(echoValue('15s', [])).toBe('15s');
    expect(echoValue('Maybe not', [])).toBe('Maybe not');
    expect(echoValue('https://feed.example.com/v2', [])).toBe('https://feed.example.com/v2');
    expect(echoValue('example.com/changes.atom', [])).toBe('example.com/changes.atom');
    expect(echoValue('http://127.0.0.1:9/?token=x', [])).toBe('http://127.0.0.1:9/?…');
  });

  it('hides the configured key however short, and one line of at most 120 characters is left', () => {
    expect(echoValue('abc key-123 def', ['key-123'])).toBe(`abc ${REDACTED} def`);
    const shown = echoValue('ab '.repeat(40_000), []);
    expect(shown.length).toBeLessThanOrEqual(121);
    expect(echoValue(`a\r\nFORGED\u2028b\u202ec\x1b[2Jd`, [])).toBe('a FORGED bcd');
  });
});

describe('echoUrl, echoPath and displayUrl', () => {
  it('a URL: scheme, host and port; its path only when asked, with key-like parts hidden', () => {
    expect(echoUrl(`https://h.example/base/${KEYS.L}/x?k=${KEYS.D}`)).toBe('https://h.example/…');
    expect(echoUrl(`https://h.example/base/${KEYS.L}/x?k=${KEYS.D}`, [], { path: true })).toBe(
      `https://h.example/base/${REDACTED}/x?…`,
    );
    expect(echoUrl(`https://h.example/${KEYS.Q}`, [], { path: true })).toBe(`https://h.example/${REDACTED}`);
    expect(echoUrl(`http://user:pw@${KEYS.L}:3128`)).toBe(`http://***@${REDACTED}:3128`);
    expect(displayUrl(`http://${KEYS.L}:3128`)).toBe(`http://${REDACTED}:3128`);
    expect(displayUrl('http://proxy-abc123xyz456789def.corp:3128')).toBe(
      'http://proxy-abc123xyz456789def.corp:3128',
    );
  });

  it('a path: shown on one line and cut in the middle; a bare key where a path belongs hidden', () => {
    expect(echoPath('/etc/ssl/corporate-root-ca-2024.pem')).toBe('/etc/ssl/corporate-root-ca-2024.pem');
    expect(echoPath(`x\r\n✔ CA certificates  forged line`)).toBe('x ✔ CA certificates  forged line');
    expect(echoPath(KEYS.L)).toBe(REDACTED);
    const long = echoPath(`/tmp/${'d/'.repeat(50_000)}ca.pem`);
    expect(long.length).toBeLessThanOrEqual(161);
    expect(long.endsWith('ca.pem')).toBe(true);
  });

  it('secretShapedTokens: a key as a proxy host, a base URL path or a NO_PROXY entry; not a host name', () => {
    expect(secretShapedTokens(KEYS.L)).toContain(KEYS.L);
    expect(secretShapedTokens(`http://127.0.0.1:9/${KEYS.L}`)).toContain(KEYS.L);
    expect(secretShapedTokens(`localhost,${KEYS.D}`)).toContain(KEYS.D);
    expect(secretShapedTokens('https://model-feed-abc123xyz456-uc.a.run.app')).toEqual([]);
    expect(secretShapedTokens('proxy.corp.example.internal:3128,.corp.example.internal')).toEqual([]);
  });
});

/** The scan, on its own in a worker ended past the bound (see runInWorker). */
const scanInWorker = (value: string, boundMs: number) =>
  runInWorker(
    new URL('../../src/text/redact.ts', import.meta.url).pathname,
    'm.secretShapedTokens(value); m.echoValue(value, []); m.echoPath(value, [])',
    value,
    boundMs,
  );

describe('the scan is linear in the length of the value', () => {
  it('1 MB of key characters with no digit, of a NO_PROXY list, of near keys, slashes and escapes, within a bounded wait', async () => {
    const values = [
      'A'.repeat(1 << 20),
      `${'a.example.com,'.repeat(75_000)}x`,
      'sk-abcde '.repeat(120_000),
      `http://${'//a'.repeat(350_000)}`,
      '\x1b]'.repeat(350_000),
    ];
    for (const value of values) {
      expect(await scanInWorker(value, 20_000)).toBe('done');
    }
  }, 60_000);
});
