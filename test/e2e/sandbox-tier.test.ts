/**
 * `sandbox --tier free|pro`: the key the sandbox prints, or the one chosen in MODEL_FEED_API_KEY,
 * is of that tier, as the service's headers say. `--live` defaults to pro, so that `watch` may poll
 * every few seconds; a still sandbox stays free, the tier of a new key.
 */

import { describe, expect, it } from 'vitest';
import { eventually, run, scrubbedEnv, spawnRaw } from './harness.js';

/** Starts `sandbox <args>`, reads the tier its key gets from the service's own headers, stops it. */
async function tierOf(args: string[], env = scrubbedEnv()) {
  const raw = spawnRaw(env, ['sandbox', '--port', '0', ...args]);
  try {
    await eventually(
      () => /Press Ctrl\+C/.test(raw.stdout()) || raw.child.exitCode !== null,
      'the sandbox to start',
    );
    const url = /base URL\s+(\S+)/.exec(raw.stdout())?.[1];
    const key = env.MODEL_FEED_API_KEY ?? /API key\s+(mfsk_\S+)/.exec(raw.stdout())?.[1];
    expect(url, raw.stderr()).toBeDefined();
    const res = await fetch(`${url}/api/v1/changes?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    return {
      tier: res.headers.get('x-service-tier'),
      limit: res.headers.get('x-ratelimit-limit'),
      tierLine: /^ {2}tier {6}(.*)$/m.exec(raw.stdout())?.[1],
    };
  } finally {
    raw.child.kill('SIGINT');
    expect((await raw.exited).code).toBe(0);
  }
}

const PRO_LINE = 'pro: 100,000 calls a day, so watch polls every 4 s by default (--tier free for 346 s)';
const FREE_LINE = 'free: 1,000 calls a day, so watch polls every 346 s by default (--tier pro for 4 s)';

describe('sandbox --tier', () => {
  it('--live alone gives a pro key, and says so', async () => {
    expect(await tierOf(['--live', '5'])).toEqual({ tier: 'pro', limit: '100000', tierLine: PRO_LINE });
  });

  it('without --live the key stays free, and says how to get pro', async () => {
    expect(await tierOf([])).toEqual({ tier: 'free', limit: '1000', tierLine: FREE_LINE });
  });

  it('--tier chooses either way, with or without --live', async () => {
    expect(await tierOf(['--live', '5', '--tier', 'free'])).toEqual({
      tier: 'free',
      limit: '1000',
      tierLine: FREE_LINE,
    });
    expect(await tierOf(['--tier', 'pro'])).toEqual({ tier: 'pro', limit: '100000', tierLine: PRO_LINE });
  });

  it('gives a key chosen in MODEL_FEED_API_KEY the tier too', async () => {
    const env = scrubbedEnv({ MODEL_FEED_API_KEY: 'mfsk_chosen_for_the_tier_test' });
    expect(await tierOf(['--live', '5'], env)).toMatchObject({ tier: 'pro', limit: '100000' });
  });

  it('refuses another tier with one line and exit code 2', async () => {
    const out = await run(['sandbox', '--port', '0', '--tier', 'gold']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain('--tier must be free or pro; got "gold".');
  });

  it('lists --tier in its help, and in the message for a runner flag given to it', async () => {
    const help = await run(['sandbox', '--help']);
    expect(help.stdout).toMatch(/--tier <tier>\s+the tier of the key it accepts: free/);
    const stray = await run(['sandbox', '--timeout', '5']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('sandbox takes --port, --host, --live and --tier.');
  });
});
