/**
 * The key in every setting, in every position: no message built from the settings prints it, and
 * proxy credentials come out by parsing, whatever characters the password holds.
 */

import { describe, expect, it } from 'vitest';
import { type Config, type ConfigFlags, ENV, resolveConfig } from '../../src/config.js';
import { describeError } from '../../src/describe-error.js';
import { checkCaSources } from '../../src/doctor/ca-check.js';
import { checkSettings } from '../../src/doctor/settings-check.js';
import { ConfigError } from '../../src/errors.js';
import { chooseProxy } from '../../src/net/proxy.js';
import { displayUrl, echoValue, redactSecrets } from '../../src/text/redact.js';

const KEY = 'mfsk_live_9f8e7d6c5b4a39281706';
const BASE = 'https://feed.example.com';

/** Every string flag of ConfigFlags, and every variable resolveConfig reads besides the key. */
const FLAGS: (keyof ConfigFlags)[] = [
  'baseUrl',
  'timeout',
  'cacheTtl',
  'logLevel',
  'logFormat',
  'watchInterval',
  'staleMaxAge',
  'proxy',
];
const ENV_VARS = [
  ...Object.values(ENV).filter((name) => name !== ENV.apiKey),
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
];

/**
 * Keys of several shapes, the review's among them: letters only, digits, `"` and `\\`, `.` and `/`,
 * a known prefix. Each is judged by its form (one long token), not its alphabet. Mixed case, so
 * that a value lowercased before its echo would show.
 */
const KEY_SHAPES: { shape: string; key: string }[] = [
  { shape: 'mfsk_ key', key: KEY },
  { shape: 'letters-only key', key: 'QwErTyUiOpAsDfGhJkLzXcVb' },
  { shape: 'key with digits', key: 'Zq8vN3kLm5Tx2Rw7Hy4Jp6' },
  { shape: 'L: letters only', key: 'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ' },
  { shape: 'D: letters and digits', key: 'Q7mZp2LxV9cT4nRw8KbY3hJd6FsA1gUe5oNi0qWt' },
  { shape: 'Q: with quotes and backslashes', key: 'k9Xq2"Tz4vL\\m8Rw3Ny"7Hs5Dp\\Qe6Gj1Fb"0Zc' },
  { shape: 'M: mfsk_live_', key: 'mfsk_live_7Hq2ZtLw9XcV4bNm8KpR3sJd6FgY' },
];

/** Where a hurried user puts the key: whole, in a path, as a password, as a host. */
const positions = (key: string): string[] => [
  key,
  ` ${key} `,
  `Bearer ${key}`,
  `http://remote/${key}`,
  `https://h/${key}/api/v1`,
  `https://h/api/${key}`,
  `http://user:${key}@proxy:8080`,
  `http://${key}@proxy`,
  `http://${key}:8080`,
  `x${key}y`,
  `${key}/api/v1`,
  `https://h/?key=${key}`,
];

/** Everything resolveConfig lets a person read: the thrown message, or the setup error and warnings. */
function everythingShown(flags: ConfigFlags, env: Record<string, string>): string {
  let config: Config;
  try {
    config = resolveConfig(flags, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  const settings = checkSettings({ config, env, sandboxUrl: undefined });
  const route = config.baseUrl ? chooseProxy(new URL(config.baseUrl), config.proxy).reason : '';
  // doctor's CA check names the file: as it reads when the file cannot be read.
  const ca = config.extraCaCerts
    ? checkCaSources(1, { path: config.extraCaCerts, error: 'ENOENT' })
    : undefined;
  // What the logger, doctor and tool results do to every line: hide Config.secrets.
  return redactSecrets(
    [
      config.setupError ? describeError(config.setupError) : '',
      ...config.warnings,
      settings.detail,
      settings.fix ?? '',
      route,
      ca?.detail ?? '',
    ].join('\n'),
    config.secrets,
  );
}

/** The configured key: set right (with spaces around it too), not set, or swapped with the base URL. */
const keySettings = (key: string): Record<string, Record<string, string>> => ({
  'key set': { MODEL_FEED_API_KEY: key },
  'key set with spaces around': { MODEL_FEED_API_KEY: `  ${key}\n` },
  'no key': {},
  'key and base URL swapped': { MODEL_FEED_API_KEY: BASE },
});

/**
 * Without the key configured, only its form can give it away, and not everywhere: doctor names the
 * CA file, a path by design, and hides only a value that may be a key whole (no folder, no
 * extension) or a key's prefix.
 */
function hiddenByShape(setting: string, value: string, key: string): boolean {
  if (setting === 'NODE_EXTRA_CA_CERTS') return key.startsWith('mfsk_') || !/[/.]/.test(value);
  return true;
}

/** Not the key, in any case: a host name or a lowercased echo would show it in lower case. */
function expectHidden(shown: string, key: string, where: string): void {
  expect(shown.toLowerCase(), where).not.toContain(key.toLowerCase());
}

describe('what looks like a key but is data stays readable', () => {
  it('a host name with capitals and digits, and a CA file name, are named as they are', () => {
    const shown = everythingShown(
      {},
      {
        MODEL_FEED_BASE_URL: 'https://Gateway-Prod2024-Region.example.com',
        MODEL_FEED_API_KEY: KEY,
        NODE_EXTRA_CA_CERTS: '/tmp/certs/corporate-root-ca-2024.pem',
      },
    );
    expect(shown).toContain('corporate-root-ca-2024.pem');
    expect(shown.toLowerCase()).toContain('gateway-prod2024-region.example.com');
    expect(shown).not.toContain('[redacted]');
  });

  it("a command's own arguments are not settings: call's tool arguments and watch's paths stay out of the secrets", () => {
    // call and watch hand resolveConfig every option they parsed, their own among them.
    const flags = {
      id: 'nvidia/nemotron-3-super-120b-a12b',
      jsonl: '/var/log/changes-2024-archive.jsonl',
    } as ConfigFlags;
    const { secrets } = resolveConfig(flags, { MODEL_FEED_BASE_URL: BASE, MODEL_FEED_API_KEY: KEY });
    expect(secrets.join(' ')).not.toMatch(/nemotron|archive/);
  });
});

describe('the key in any setting, in any position, is never echoed', () => {
  for (const { shape, key } of KEY_SHAPES) {
    for (const [keyCase, keyEnv] of Object.entries(keySettings(key))) {
      const configured = keyEnv.MODEL_FEED_API_KEY?.includes(key) === true;

      it(`${shape}, ${keyCase}: every env var`, () => {
        for (const name of ENV_VARS) {
          for (const value of positions(key)) {
            if (!configured && !hiddenByShape(name, value, key)) continue;
            const env = { MODEL_FEED_BASE_URL: BASE, ...keyEnv, [name]: value };
            expectHidden(everythingShown({}, env), key, `${name}=${value}`);
          }
        }
      });

      it(`${shape}, ${keyCase}: every flag`, () => {
        for (const flag of FLAGS) {
          for (const value of positions(key)) {
            if (!configured && !hiddenByShape(flag, value, key)) continue;
            const shown = everythingShown({ [flag]: value }, { MODEL_FEED_BASE_URL: BASE, ...keyEnv });
            expectHidden(shown, key, `--${flag} ${value}`);
          }
        }
      });
    }
  }

  it('MODEL_FEED_DISK_CACHE: a value it refuses is quoted as given, redacted, not lowercased', () => {
    const key = 'QwErTyUiOpAsDfGhJkLzXcVb';
    const env = { MODEL_FEED_BASE_URL: BASE, MODEL_FEED_API_KEY: key };
    expect(() => resolveConfig({}, { ...env, MODEL_FEED_DISK_CACHE: key })).toThrow(
      'MODEL_FEED_DISK_CACHE must be 0 (off) or 1 (on); got "[redacted]".',
    );
    expect(() => resolveConfig({}, { ...env, MODEL_FEED_DISK_CACHE: 'Maybe' })).toThrow('got "Maybe".');
  });

  it('lists the key found in the wrong variable among the secrets the logs hide', () => {
    const config = resolveConfig({}, { MODEL_FEED_BASE_URL: KEY, MODEL_FEED_API_KEY: BASE });
    expect(config.secrets).toContain(KEY);
    expect(config.setupError?.message).toMatch(/looks like an API key|look swapped/);
  });

  it('refuses a base URL that carries the configured key, and says where the key belongs', () => {
    const config = resolveConfig({}, { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: `https://h/${KEY}` });
    expect(config.setupError?.message).toContain('contains the API key');
    expect(config.setupError?.message).not.toContain(KEY);
  });

  it('says the two variables look swapped when the key variable holds a URL', () => {
    const config = resolveConfig({}, { MODEL_FEED_API_KEY: BASE, MODEL_FEED_BASE_URL: BASE });
    expect(config.setupError?.message).toContain('look swapped');
  });
});

describe('proxy credentials are removed by parsing', () => {
  const PASSWORDS = [
    'S3cr@tVal',
    'S3cr tVal',
    'S3cr/tVal',
    'S3c@r/tVal',
    'S3cr:tVal',
    'S3cr%40tVal',
    'S3cr#tVal',
    'S3cr?tVal',
  ];

  for (const password of PASSWORDS) {
    const proxy = `http://user:${password}@proxy.corp:3128`;
    it(`password ${JSON.stringify(password)}: not in the --proxy error, the ignored-variable warning or the route`, () => {
      const fromFlag = everythingShown({ proxy }, { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: BASE });
      const fromEnv = everythingShown(
        {},
        { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: BASE, HTTPS_PROXY: proxy },
      );
      for (const shown of [fromFlag, fromEnv]) {
        expect(shown).not.toContain(password);
        // The fragments a pattern-based redaction used to leave behind.
        for (const part of password.split(/[@/ :#?%]/).filter((p) => p.length > 2)) {
          expect(shown).not.toContain(part);
        }
      }
    });
  }

  it('shows scheme, host and port, with *** for the credentials', () => {
    expect(displayUrl('http://user:p%40ss@proxy.corp:3128')).toBe('http://***@proxy.corp:3128');
    expect(displayUrl('http://proxy.corp:3128/')).toBe('http://proxy.corp:3128');
    expect(displayUrl('not a url')).toBeUndefined();
  });

  it('a setting value that is echoed has secret-shaped tokens and controls removed', () => {
    expect(echoValue(`abc sk-${'x'.repeat(30)} \x1b[2Jdef`, [])).toBe('abc [redacted] def');
    expect(echoValue(`x mfsk_live_01\x07${'a'.repeat(20)}`, [`mfsk_live_01${'a'.repeat(20)}`])).toBe(
      'x [redacted]',
    );
  });
});

describe('ordinary settings are not mistaken for secrets', () => {
  it('a long, mixed host name (Cloud Run, say) stays readable', () => {
    const base = 'https://model-feed-abc123xyz456-uc.a.run.app';
    const config = resolveConfig({}, { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: base });
    expect(config.setupError).toBeUndefined();
    expect(config.secrets).toEqual([KEY]);
    expect(
      chooseProxy(new URL(base), { ...config.proxy, https: 'http://proxy-abc123xyz456789def.corp:3128' })
        .reason,
    ).toContain('proxy-abc123xyz456789def.corp');
  });
});
