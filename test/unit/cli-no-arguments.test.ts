import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import type { ConfigFlags } from '../../src/config.js';
import { resolveConfig } from '../../src/config.js';

const io = { stdout: () => {}, stderr: () => {}, env: {} };

/** The options commander hands the server's action when it is started with no arguments. */
function commanderFlagsForNoArguments(): ConfigFlags {
  const program = buildProgram(io, [], () => {});
  program.parseOptions([]);
  return program.opts<ConfigFlags>();
}

describe('the server started with no arguments', () => {
  // main() serves `{}` without building the command line when argv is empty: that must be the
  // same configuration commander would have produced, whatever the environment says.
  it.each([
    ['no settings', {}],
    [
      'a full environment',
      {
        MODEL_FEED_API_KEY: 'mfsk_live_abcdef123456',
        MODEL_FEED_BASE_URL: 'https://feed.example.com',
        MODEL_FEED_DISK_CACHE: '0',
        MODEL_FEED_TIMEOUT_MS: '5000',
        HTTPS_PROXY: 'http://proxy.example:3128',
      },
    ],
    [
      'the disk cache and the cache lifetime from env',
      { MODEL_FEED_DISK_CACHE: '1', MODEL_FEED_CACHE_TTL_S: '0' },
    ],
  ])('resolves the same config as through commander: %s', (_name, env: Record<string, string>) => {
    const flags = commanderFlagsForNoArguments();
    expect(resolveConfig({}, env, [])).toEqual(resolveConfig(flags, env, []));
  });

  it('commander gives no option a value that would change the server', () => {
    // Only the --no-disk-cache switch has a default (true), which resolveConfig reads as "not off".
    expect(commanderFlagsForNoArguments()).toEqual({ diskCache: true });
  });
});
