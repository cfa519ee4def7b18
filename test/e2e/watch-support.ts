/** Shared pieces of the `watch` end-to-end tests: a watcher process, its output, the feed's truth. */

import type { Sandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { type Output, run, scrubbedEnv } from './harness.js';

export interface Envelope {
  type: string;
  timestamp: string;
  deliveryId: string;
  data: { id: string; eventType: string; verificationStatus?: string; [field: string]: unknown };
}

export const tempDir = (): string => tempFolder('mf-watch-');

export function watchEnv(sandbox: Pick<Sandbox, 'url' | 'key'>, extra: Record<string, string> = {}) {
  return scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url, ...extra });
}

/** Runs `watch` to its end (bounded) and collects its output. */
export function runWatch(args: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<Output> {
  return run(['watch', ...args], env, { timeoutMs });
}

export function envelopes(text: string): Envelope[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Envelope);
}

/** Every event id of the feed after `since`, in feed order, read straight from the service. */
export async function feedIds(sandbox: Pick<Sandbox, 'url' | 'key'>, since = 0): Promise<string[]> {
  const ids: string[] = [];
  let cursor = since;
  for (let page = 0; page < 1000; page++) {
    const response = await fetch(`${sandbox.url}/api/v1/changes?since=${cursor}&limit=100`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    const body = (await response.json()) as { items: { id: string }[]; latest: number | null };
    ids.push(...body.items.map((item) => item.id));
    if (body.items.length < 100 || body.latest === null) return ids;
    cursor = body.latest;
  }
  throw new Error('the feed did not end within 1000 pages');
}
