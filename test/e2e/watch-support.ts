/** Shared pieces of the `watch` end-to-end tests: a watcher process, its output, the feed's truth. */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { type Output, run, scrubbedEnv } from './harness.js';

export interface Envelope {
  type: string;
  timestamp: string;
  deliveryId: string;
  delivery: 'new' | 'update';
  changed: string[];
  previous: Record<string, string | null>;
  rejected: boolean;
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

/**
 * A verifier written from the Standard Webhooks specification: the signature is the base64
 * HMAC-SHA256, keyed with the base64-decoded part of `whsec_…`, of `{id}.{timestamp}.{body}`; the
 * header lists `v1,<sig>` entries separated by spaces; the timestamp must be within 5 minutes.
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The JSON envelope's fields, in the order a delivery writes them: the marking before `data`. */
export const ENVELOPE_KEYS = [
  'type',
  'timestamp',
  'deliveryId',
  'delivery',
  'changed',
  'previous',
  'rejected',
  'data',
];
