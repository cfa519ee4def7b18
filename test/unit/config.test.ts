import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const base = {
  MODEL_FEED_API_KEY: 'mfsk_live_abcdef123456',
  MODEL_FEED_BASE_URL: 'https://feed.example.com/',
};

describe('resolveConfig', () => {
  it('applies defaults and normalises the base URL', () => {
    const config = resolveConfig({}, base);
    expect(config).toMatchObject({
      apiKey: 'mfsk_live_abcdef123456',
      baseUrl: 'https://feed.example.com',
      setupError: undefined,
      timeoutMs: 15000,
      cacheTtlS: 60,
      logLevel: 'warn',
      logFormat: 'text',
      sandbox: false,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('lets flags win over env vars', () => {
    const env = {
      ...base,
      MODEL_FEED_TIMEOUT_MS: '5000',
      MODEL_FEED_LOG_LEVEL: 'info',
      MODEL_FEED_CACHE_TTL_S: '10',
    };
    const config = resolveConfig(
      { timeout: '2000', logLevel: 'debug', baseUrl: 'https://other.example.com/v2/' },
      env,
    );
    expect(config).toMatchObject({
      timeoutMs: 2000,
      logLevel: 'debug',
      cacheTtlS: 10,
      baseUrl: 'https://other.example.com/v2',
    });
  });

  it('keeps a missing key as a setup error that names the env var, without failing', () => {
    const config = resolveConfig({}, { MODEL_FEED_BASE_URL: 'https://feed.example.com' });
    expect(config.setupError).toBeInstanceOf(ConfigError);
    expect(config.setupError?.message).toContain('MODEL_FEED_API_KEY');
    expect(config.setupError?.message).toContain('account screen');
  });

  it('keeps a missing base URL as a setup error with an example', () => {
    const config = resolveConfig({}, { MODEL_FEED_API_KEY: 'k'.repeat(20) });
    expect(config.setupError?.message).toMatch(/MODEL_FEED_BASE_URL .*e\.g\. MODEL_FEED_BASE_URL=https:\/\//);
  });

  it('refuses plain http to a remote host, allows it for loopback', () => {
    const remote = resolveConfig({}, { ...base, MODEL_FEED_BASE_URL: 'http://feed.example.com' });
    expect(remote.setupError?.message).toContain('clear text');
    expect(remote.setupError?.message).toContain('https://feed.example.com');
    for (const url of ['http://localhost:8080', 'http://127.0.0.2:1', 'http://[::1]:9']) {
      expect(resolveConfig({}, { ...base, MODEL_FEED_BASE_URL: url }).setupError).toBeUndefined();
    }
  });

  it('reports a base URL that is not a URL', () => {
    const config = resolveConfig({ baseUrl: 'feed.example.com' }, base);
    expect(config.setupError?.message).toBe(
      '--base-url is not a URL: "feed.example.com". Use the service\'s base URL, e.g. MODEL_FEED_BASE_URL=https://<service host>.',
    );
  });

  it('accepts a key pasted with its Bearer scheme, refuses one with spaces inside', () => {
    expect(resolveConfig({}, { ...base, MODEL_FEED_API_KEY: 'Bearer abcdef123456' }).apiKey).toBe(
      'abcdef123456',
    );
    expect(resolveConfig({}, { ...base, MODEL_FEED_API_KEY: 'abc def' }).setupError?.message).toContain(
      'spaces',
    );
  });

  it('fails at start on other invalid values, naming flag or env var and what is allowed', () => {
    expect(() => resolveConfig({ timeout: '-5' }, base)).toThrow(
      '--timeout must be a whole number of milliseconds from 1 to 600000; got "-5".',
    );
    expect(() => resolveConfig({}, { ...base, MODEL_FEED_CACHE_TTL_S: 'soon' })).toThrow(
      /MODEL_FEED_CACHE_TTL_S must be a whole number/,
    );
    expect(() => resolveConfig({ logLevel: 'loud' }, base)).toThrow(
      '--log-level must be one of debug, info, warn, error, silent; got "loud".',
    );
  });

  it('--watch-interval / MODEL_FEED_WATCH_INTERVAL_S: absent by default (the tier decides), flag over env', () => {
    expect(resolveConfig({}, base).watchIntervalS).toBeUndefined();
    expect(resolveConfig({}, { ...base, MODEL_FEED_WATCH_INTERVAL_S: '30' })).toMatchObject({
      watchIntervalS: 30,
      sources: { watchInterval: 'MODEL_FEED_WATCH_INTERVAL_S' },
    });
    expect(
      resolveConfig({ watchInterval: '5' }, { ...base, MODEL_FEED_WATCH_INTERVAL_S: '30' }),
    ).toMatchObject({
      watchIntervalS: 5,
      sources: { watchInterval: '--watch-interval' },
    });
    expect(() => resolveConfig({ watchInterval: '0' }, base)).toThrow(
      '--watch-interval must be a whole number of seconds from 1 to 86400 (the poll interval for resource subscriptions, set by --watch-interval or MODEL_FEED_WATCH_INTERVAL_S); got "0".',
    );
    expect(() => resolveConfig({}, { ...base, MODEL_FEED_WATCH_INTERVAL_S: '1.5' })).toThrow(
      /^MODEL_FEED_WATCH_INTERVAL_S must be a whole number of seconds .* --watch-interval or MODEL_FEED_WATCH_INTERVAL_S\); got "1.5"\.$/,
    );
  });

  it('refuses a base URL that points at an endpoint, naming the base URL it likely means', () => {
    const hosted = resolveConfig({}, { ...base, MODEL_FEED_BASE_URL: 'https://feed.example.com/api/mcp' });
    expect(hosted.setupError?.message).toContain(
      'points at /api/mcp, an endpoint of the service, not its base URL. Use https://feed.example.com ',
    );
    const rest = resolveConfig({ baseUrl: 'https://feed.example.com/v2/api/v1/changes' }, base);
    expect(rest.setupError?.message).toContain('Use https://feed.example.com/v2 ');
  });

  it('ignores an unusable proxy variable with a warning, but stops on an unusable --proxy', () => {
    const config = resolveConfig(
      {},
      { ...base, HTTPS_PROXY: 'socks5://proxy:1080', HTTP_PROXY: 'http://p:3128' },
    );
    expect(config.proxy.https).toBeUndefined();
    expect(config.proxy.http).toBe('http://p:3128');
    expect(config.warnings).toEqual([
      'HTTPS_PROXY must be an http:// or https:// proxy; got socks5:// (SOCKS is not supported). It is ignored; requests go direct unless --proxy names an HTTP proxy.',
    ]);
    expect(() => resolveConfig({ proxy: 'socks5://proxy:1080' }, base)).toThrow(/--proxy must be an http/);
  });

  it('reads proxy variables in either case, upper case first', () => {
    const config = resolveConfig(
      {},
      { ...base, https_proxy: 'http://lower:1', HTTP_PROXY: 'proxy.corp:3128', no_proxy: '.corp' },
    );
    expect(config.proxy).toEqual({
      flag: undefined,
      https: 'http://lower:1',
      http: 'http://proxy.corp:3128',
      noProxy: '.corp',
    });
  });

  it('notices a key in argv', () => {
    expect(resolveConfig({}, base, ['--base-url', 'x']).keyInArgv).toBe(false);
    expect(resolveConfig({}, base, ['MODEL_FEED_API_KEY=abc']).keyInArgv).toBe(true);
    expect(resolveConfig({}, base, ['mfsk_live_abcdef123456']).keyInArgv).toBe(true);
  });

  it('records where each setting came from: flag, env var, or (absent) the default', () => {
    const config = resolveConfig(
      { timeout: '500' },
      { ...base, MODEL_FEED_TIMEOUT_MS: '9', MODEL_FEED_LOG_LEVEL: ' ' },
    );
    expect(config.sources).toEqual({ timeout: '--timeout', baseUrl: 'MODEL_FEED_BASE_URL' });
  });

  it('needs no key or base URL in sandbox mode', () => {
    expect(resolveConfig({ sandbox: true }, {}).setupError).toBeUndefined();
  });
});
