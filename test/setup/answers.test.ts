/**
 * setup's answers judged where they are typed (src/setup/answers.ts): pure. The prompt's rules must
 * be the configuration's: what one accepts, the other accepts as the same URL, and what the prompt
 * refuses the configuration refuses too.
 */

import { describe, expect, it } from 'vitest';
import { ENV, resolveConfig } from '../../src/config.js';
import { checkTypedBaseUrl, shownAnswer, typedKeyProblem } from '../../src/setup/answers.js';

const KEY = 'mfsk_test_0123456789abcdef';

/** The configuration's verdict on a base URL, with a good key beside it. */
function configAccepts(baseUrl: string): string | undefined {
  const config = resolveConfig({ baseUrl }, { [ENV.apiKey]: KEY });
  return config.setupError ? undefined : config.baseUrl;
}

describe('a base URL typed at the prompt', () => {
  it.each([
    ['127.0.0.1:38327', 'http://127.0.0.1:38327'],
    ['localhost:8080', 'http://localhost:8080'],
    ['[::1]:9000/feed/', 'http://[::1]:9000/feed'],
    ['feed.example.com', 'https://feed.example.com'],
    ['feed.example.com:8443/base', 'https://feed.example.com:8443/base'],
    // Offered once for both faults: the scheme it lacks and the endpoint path it should not have.
    ['feed.example.com/api/v1/changes', 'https://feed.example.com'],
  ])('%s, without a scheme, is refused with %s offered', (typed, offer) => {
    const verdict = checkTypedBaseUrl(typed);
    expect(verdict).toEqual({ problem: expect.stringContaining(`"${typed}" has no scheme`), offer });
    expect(checkTypedBaseUrl(offer)).toEqual({ value: offer });
  });

  it('says http:// is for this machine only where the host is this machine', () => {
    expect(checkTypedBaseUrl('127.0.0.1:1')).toMatchObject({
      problem:
        '"127.0.0.1:1" has no scheme: a base URL starts with https://, or http:// on this machine (localhost, 127.0.0.0/8 and ::1).',
    });
    expect(checkTypedBaseUrl('example.com')).toMatchObject({
      problem: '"example.com" has no scheme: a base URL starts with https://.',
    });
  });

  it.each([
    ['http://feed.example.com/base/', 'uses plain http://', 'https://feed.example.com/base'],
    [
      'https://u:p@feed.example.com/?x=1#y',
      'has a user name, a query or a fragment',
      'https://feed.example.com',
    ],
    [
      'https://feed.example.com/api/mcp',
      'is an endpoint of the service (/api/mcp)',
      'https://feed.example.com',
    ],
    ['ftp://feed.example.com', 'is not an http:// or https:// address', undefined],
    ['not a url', 'is not a URL', undefined],
    ['', 'No base URL typed', undefined],
  ])('%s is refused (%s), offering %s', (typed, problem, offer) => {
    const verdict = checkTypedBaseUrl(typed);
    expect(verdict).toMatchObject({ problem: expect.stringContaining(problem) });
    expect('offer' in verdict ? verdict.offer : undefined).toBe(offer);
  });

  it('quotes what was typed without its control characters, and never a key', () => {
    const verdict = checkTypedBaseUrl('https://feed\x1b[2J.example.com\x07');
    expect(verdict).toEqual({
      problem:
        '"https://feed.example.com" has control characters in it (an arrow key or Escape?): type the URL again without them.',
    });
    const key = checkTypedBaseUrl(KEY);
    expect(key).toEqual({
      problem:
        'That looks like an API key, not a URL (not shown). The base URL comes first (https://<service host>); the key is asked next.',
    });
    expect(shownAnswer(`x${KEY}`)).not.toContain(KEY);
  });

  it.each([
    'someKey-12345678',
    'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ',
    'k9Xq2"Tz4vL\\m8Rw3Ny"7Hs5Dp\\Qe6Gj1Fb"0Zc',
    '"someKey-12345678"',
  ])(
    '%s, one long token with no dot, colon or slash, is taken for a key: not shown, not offered',
    (typed) => {
      expect(checkTypedBaseUrl(typed)).toEqual({
        problem:
          'That looks like an API key, not a URL (not shown). The base URL comes first (https://<service host>); the key is asked next.',
      });
    },
  );

  it.each([
    ['localhost', 'http://localhost'],
    ['feedbox', 'https://feedbox'],
  ])('%s, a short host name, is still offered as %s', (typed, offer) => {
    expect(checkTypedBaseUrl(typed)).toMatchObject({ offer });
  });

  it.each(['"http://127.0.0.1:8080"', "'http://127.0.0.1:8080'", '\u201chttp://127.0.0.1:8080\u201d'])(
    'a URL in a pair of quotes (copied from a JSON or .env file) is taken without them: %s',
    (typed) => {
      expect(checkTypedBaseUrl(typed)).toEqual({ value: 'http://127.0.0.1:8080' });
    },
  );

  it('a URL pasted with the terminal in bracketed-paste mode is taken without the markers', () => {
    expect(checkTypedBaseUrl('\x1b[200~http://127.0.0.1:8080\x1b[201~')).toEqual({
      value: 'http://127.0.0.1:8080',
    });
  });

  it('quote marks that do not pair are refused, the URL without them offered', () => {
    expect(checkTypedBaseUrl('"http://127.0.0.1:8080\'')).toEqual({
      problem: '"http://127.0.0.1:8080" has quote marks around it, which a URL does not.',
      offer: 'http://127.0.0.1:8080',
    });
  });

  it('a quoted URL is judged as any other: plain http to another host is refused', () => {
    expect(checkTypedBaseUrl('"http://feed.example.com"')).toMatchObject({
      offer: 'https://feed.example.com',
    });
  });

  it('an answer longer than any base URL is refused as too long, with no offer', () => {
    expect(checkTypedBaseUrl(`http://127.0.0.1:1/${'a'.repeat(4_095)}`)).toEqual({
      problem:
        'That answer is 4,114 characters long, more than a base URL can be (2,048): type the base URL alone.',
    });
  });

  it('accepts what the configuration accepts, as the same URL, and refuses what it refuses', () => {
    const answers = [
      'https://feed.example.com',
      'https://feed.example.com/',
      'https://feed.example.com:8443/base//',
      'http://127.0.0.1:38327',
      'http://localhost:1/x',
      'http://[::1]:2',
      'http://127.1.2.3',
      'http://feed.example.com',
      'http://10.0.0.1:80',
      'http://app.localhost:3000',
      'https://user@feed.example.com',
      'https://feed.example.com/?q',
      'https://feed.example.com/#f',
      'https://feed.example.com/api/v1',
      'https://feed.example.com/base/api/mcp/',
      'ftp://feed.example.com',
      'file:///etc/passwd',
      'https://',
      'https://exa mple.com',
    ];
    for (const typed of answers) {
      const verdict = checkTypedBaseUrl(typed);
      expect('value' in verdict ? verdict.value : undefined, typed).toBe(configAccepts(typed));
      // Whatever is offered, the configuration takes as it stands.
      if ('offer' in verdict && verdict.offer !== undefined) {
        expect(configAccepts(verdict.offer), typed).toBe(verdict.offer);
      }
    }
  });
});

describe('a key typed at the prompt', () => {
  it.each([
    [`"${KEY}"`, 'starts or ends with a quote mark'],
    [`${KEY}\u200b`, 'invisible characters'],
    ['https://feed.example.com', 'is a URL, not a key'],
    [`${KEY.slice(0, 8)} ${KEY.slice(8)}`, 'contains spaces or control characters'],
  ])('a refused key is named but never shown (%#: %s)', (typed, problem) => {
    const said = typedKeyProblem(typed);
    expect(said).toContain(problem);
    expect(said).not.toContain(KEY.slice(5));
    // The configuration would refuse it too: the prompt refuses no key the service could take.
    expect(
      resolveConfig({ baseUrl: 'https://feed.example.com' }, { [ENV.apiKey]: typed }).setupError,
    ).toBeDefined();
  });

  it('accepts what the configuration accepts', () => {
    for (const typed of [KEY, `Bearer ${KEY}`, 'short']) {
      expect(typedKeyProblem(typed)).toBeUndefined();
      expect(
        resolveConfig({ baseUrl: 'https://feed.example.com' }, { [ENV.apiKey]: typed }).setupError,
      ).toBeUndefined();
    }
  });
});
