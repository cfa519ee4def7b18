/**
 * Cache hints for the 2026-07-28 revision (`ttlMs`, `cacheScope`), as the data deserves them:
 * - the lists (tools, prompts, resources, templates) and `server/discover` never change while the
 *   process runs, and are the same for every user: `public`, fresh for LIST_TTL_MS;
 * - a read is made with the user's key: `private`, and fresh only as long as what it was read from:
 *   a model for what is left of its cached catalog answers (0 with the cache off), the changes
 *   until the next poll could see something new, never past the cache lifetime (0 with it off).
 * docs/resources.md states the same rule.
 */

import type { CacheHint } from '@modelcontextprotocol/server';
import type { FeedApi } from '../api/client.js';
import { chooseInterval } from '../feed/schedule.js';

/**
 * How long a client may keep a list. The lists change only with a new version of this package,
 * which a client picks up by starting the server again: an hour bounds how long a long-running
 * client could show an older list across such an upgrade.
 */
export const LIST_TTL_MS = 60 * 60 * 1000;

const LISTS: CacheHint = { ttlMs: LIST_TTL_MS, cacheScope: 'public' };

/** The SDK's `ServerOptions.cacheHints`: the lists and discovery; reads set their own. */
export const LIST_CACHE_HINTS = {
  'server/discover': LISTS,
  'tools/list': LISTS,
  'prompts/list': LISTS,
  'resources/list': LISTS,
  'resources/templates/list': LISTS,
} as const;

/** A read's hint: private, fresh until `freshUntil` (epoch ms); 0 when that is past or unknown. */
export function readHint(freshUntil: number, now: number): Required<CacheHint> {
  const ttlMs = Number.isFinite(freshUntil) ? Math.max(0, Math.floor(freshUntil - now)) : 0;
  return { ttlMs, cacheScope: 'private' };
}

/**
 * How long the changes resource stays fresh: until the next poll could see something new (the
 * interval at which a subscription would poll: `--watch-interval` when the tier allows it, else
 * the tier's, the free tier's until an answer has told it), and never longer than a read is kept
 * anywhere here: the cache lifetime, 0 with the cache off.
 */
export function changesFreshMs(
  api: Pick<FeedApi, 'rateLimit' | 'cacheTtlMs'>,
  watchIntervalS: number | undefined,
): number {
  const tier = { limit: api.rateLimit?.limit ?? null, name: api.rateLimit?.tier ?? null };
  const choice = chooseInterval(watchIntervalS, tier);
  const pollMs = (choice.ok ? choice.seconds : choice.smallest) * 1000;
  return Math.min(pollMs, api.cacheTtlMs ?? 0);
}
