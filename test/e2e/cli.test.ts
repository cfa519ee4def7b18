import { describe, expect, it } from 'vitest';
import { run, scrubbedEnv } from './harness.js';

describe('the command line', () => {
  it('stops at once on an invalid setting, with one line and exit code 2', async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [
        ['--timeout', 'soon'],
        {},
        '--timeout must be a whole number of milliseconds from 1 to 600000; got "soon".',
      ],
      [
        [],
        { MODEL_FEED_TIMEOUT_MS: '0' },
        'MODEL_FEED_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000; got "0".',
      ],
      [
        [],
        { MODEL_FEED_LOG_LEVEL: 'loud' },
        'MODEL_FEED_LOG_LEVEL must be one of debug, info, warn, error, silent; got "loud".',
      ],
      [
        [],
        { HTTPS_PROXY: 'socks5://proxy:1080' },
        'HTTPS_PROXY must be an http:// or https:// proxy; got socks5:// (SOCKS is not supported).',
      ],
    ];
    for (const [args, env, message] of cases) {
      const out = await run(args, scrubbedEnv(env));
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toBe(`model-feed-mcp: ${message}\n`);
      expect(out.stdout).toBe('');
    }
  });

  it('rejects an unknown log level flag through its choices, with exit code 2', async () => {
    const out = await run(['--log-level', 'loud']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("argument 'loud' is invalid");
  });
});
