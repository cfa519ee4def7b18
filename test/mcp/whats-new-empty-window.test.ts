/**
 * whats_new with an empty window: the requests it makes are bounded (one more at most, of
 * RECENT_CHANGES, only when the window is empty), and a failure of that extra request leaves the
 * window's answer standing.
 */

import type { GetPromptResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChangesQuery, FeedApi } from '../../src/api/client.js';
import type { ChangesPage } from '../../src/api/schemas.js';
import { RateLimitError } from '../../src/errors.js';
import { RECENT_CHANGES } from '../../src/prompts/whats-new.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connect, rejection, sandboxApi } from './support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

const text = (result: GetPromptResult): string => {
  const content = result.messages[0]!.content;
  if (content.type !== 'text') throw new Error(`the first message is ${content.type}, not text`);
  return content.text;
};

const uris = (result: GetPromptResult): string[] =>
  result.messages.flatMap((m) => (m.content.type === 'resource' ? [m.content.resource.uri] : []));

describe('whats_new: an empty window', () => {
  it('makes one more request, for the newest few changes with the same filters, and no more', async () => {
    expect(RECENT_CHANGES).toBe(5);
    const { client, close } = await connect(sandboxApi(sandbox));
    try {
      const result = await client.getPrompt({
        name: 'whats_new',
        arguments: { days: '3', type: 'deprecation', vendor: 'x-ai' },
      });
      expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([
        ['/api/v1/changes', { since: expect.any(String), type: 'deprecation', model: 'x-ai', limit: '100' }],
        ['/api/v1/changes', { type: 'deprecation', model: 'x-ai', limit: '5' }],
      ]);
      // The data set's three x-ai deprecations, detected in one second.
      expect(text(result)).toMatch(/^The latest change of this kind is from 2026-05-15, \d+ days ago\. /m);
      expect(text(result)).toMatch(
        /The 3 most recent changes are attached instead \(model-feed:\/\/changes\?limit=5&type=deprecation&model=x-ai, newest first, marked "outsideWindow": true\): all from before the last 3 days\./,
      );
      expect(uris(result)).toEqual([
        expect.stringMatching(/^model-feed:\/\/changes\?since=\d+&type=deprecation&model=x-ai$/),
        'model-feed://changes?limit=5&type=deprecation&model=x-ai',
      ]);
    } finally {
      await close();
    }
  });

  it('makes no second request when the window has changes', async () => {
    sandbox.publish('price_change');
    sandbox.clearRequests();
    const { client, close } = await connect(sandboxApi(sandbox));
    try {
      await client.getPrompt({ name: 'whats_new' });
      expect(sandbox.requests.map((r) => r.query.limit)).toEqual(['100']);
    } finally {
      await close();
    }
  });

  it('keeps the empty window when the extra request fails, and says why', async () => {
    const empty: ChangesPage = { items: [], nextCursor: null, latest: null };
    const facts = {
      method: 'GET',
      path: '/api/v1/changes',
      host: 'feed.test',
      attempts: 1,
      proxy: undefined,
    };
    const limited = () =>
      new RateLimitError('Daily limit exceeded.', facts, undefined, 600, Date.now(), false);
    /** A feed whose window answers empty, and whose later requests (or all, `failAll`) meet a 429. */
    const feed = (failAll: boolean) => {
      const queries: ChangesQuery[] = [];
      const api = {
        rateLimit: undefined,
        listChanges: async (query: ChangesQuery) => {
          queries.push(query);
          if (failAll || queries.length > 1) throw limited();
          return empty;
        },
      } as unknown as FeedApi;
      return { api, queries };
    };

    const extraFails = feed(false);
    const session = await connect(extraFails.api);
    try {
      const result = await session.client.getPrompt({ name: 'whats_new' });
      expect(extraFails.queries).toHaveLength(2);
      expect(text(result)).toContain(
        'attached, empty). The changes before the window could not be read: Daily limit reached for the current tier.',
      );
      expect(text(result)).toContain('\nThe feed has no changes in this window: say so plainly.');
      expect(uris(result)).toHaveLength(1);
    } finally {
      await session.close();
    }

    // The window's own request failing is the prompt's error, as before: nothing else is asked.
    const windowFails = feed(true);
    const failing = await connect(windowFails.api);
    try {
      const error = await rejection(failing.client.getPrompt({ name: 'whats_new' }));
      expect(error.message).toContain('Daily limit reached');
      expect(windowFails.queries).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });
});
