import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { describeError } from '../../src/describe-error.js';
import { checkSettings } from '../../src/doctor/settings-check.js';

const KEY = 'mfsk_live_0123456789abcdef0123';
const BASE = 'https://feed.example.com';

function settings(flags: Record<string, string | boolean>, env: Record<string, string>, argv: string[] = []) {
  const config = resolveConfig(flags, env, argv);
  return checkSettings({ config, env, sandboxUrl: undefined });
}

describe('the Settings check', () => {
  it('lists every setting with its origin, the key only masked', () => {
    const result = settings(
      { timeout: '5000' },
      { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: BASE, MODEL_FEED_CACHE_TTL_S: '0' },
    );
    expect(result.status).toBe('pass');
    expect(result.detail).toMatch(
      /^API key mfsk…0123 \(30 chars, sha256 [0-9a-f]{8}\) from MODEL_FEED_API_KEY; base URL https:\/\/feed\.example\.com from MODEL_FEED_BASE_URL; timeout 5000 ms from --timeout; cache TTL 0 s from MODEL_FEED_CACHE_TTL_S; log level warn \(default\)$/,
    );
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it('fails on a missing key with the text every tool call would give', () => {
    const config = resolveConfig({}, { MODEL_FEED_BASE_URL: BASE });
    const result = checkSettings({
      config,
      env: { MODEL_FEED_BASE_URL: BASE },
      sandboxUrl: undefined,
    });
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('API key not set');
    expect(result.fix).toBe(describeError(config.setupError));
    expect(result.fix).toContain('MODEL_FEED_API_KEY');
  });

  it('fails on a refused base URL, naming where it came from', () => {
    const result = settings({ baseUrl: 'http://feed.example.com' }, { MODEL_FEED_API_KEY: KEY });
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('base URL from --base-url refused');
    expect(result.fix).toMatch(/plain http:\/\/ for feed\.example\.com/);
  });

  it('warns when the key is in argv, and adds the warning to a failure', () => {
    const env = { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: BASE };
    const warned = settings({}, env, [`MODEL_FEED_API_KEY=${KEY}`]);
    expect(warned.status).toBe('warn');
    expect(warned.detail).toContain('WARNING: the API key appears in the command-line arguments');
    expect(warned.fix).toMatch(/Remove the key from the command line/);
    const failed = settings({}, { MODEL_FEED_API_KEY: KEY }, ['MODEL_FEED_API_KEY=x']);
    expect(failed.status).toBe('fail');
    expect(failed.fix).toMatch(/MODEL_FEED_BASE_URL.*Remove the key from the command line/);
  });

  it('in sandbox mode names the sandbox instead of a key', () => {
    const config = resolveConfig({ sandbox: true }, {});
    const result = checkSettings({
      config,
      env: {},
      sandboxUrl: 'http://127.0.0.1:1',
    });
    expect(result.status).toBe('pass');
    expect(result.detail).toMatch(
      /^--sandbox: .*API key: the sandbox's own; base URL http:\/\/127\.0\.0\.1:1/,
    );
  });
});
