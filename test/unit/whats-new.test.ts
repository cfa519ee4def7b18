/**
 * whats_new's words, from what the feed answered (the pure part of the prompt): an empty window
 * says so, gives the date of the latest change, and attaches the most recent changes instead,
 * marked as outside the window.
 */

import { describe, expect, it } from 'vitest';
import type { ChangeEvent, ChangesPage } from '../../src/api/schemas.js';
import { whatsNewContent } from '../../src/prompts/whats-new.js';

const NOW = Date.parse('2026-11-25T12:00:00Z') / 1000;
const SINCE = NOW - 7 * 86_400;
const EMPTY: ChangesPage = { items: [], nextCursor: null, latest: null };

function change(id: string, detectedAt: string, eventType = 'price_change'): ChangeEvent {
  return {
    id,
    eventType,
    title: `${id} changed`,
    summary: null,
    beforeValue: null,
    afterValue: null,
    sourceUrl: null,
    sourceName: 'test',
    verificationStatus: 'official',
    official: true,
    detectedAt,
    publishedAt: null,
    model: { slug: 'openai', name: 'GPT', company: 'OpenAI', accentColor: '#000' },
  } as ChangeEvent;
}

/** The newest two changes of a feed that ended on 2026-06-30 (newest first, as without `since`). */
const RECENT: ChangesPage = {
  items: [change('b', '2026-06-30T21:47:25Z'), change('a', '2026-06-22T01:30:23Z', 'deprecation')],
  nextCursor: Date.parse('2026-06-22T01:30:23Z') / 1000,
  latest: Date.parse('2026-06-30T21:47:25Z') / 1000,
};

describe('whatsNewContent', () => {
  it('a window with changes: the summary request and the window attached, nothing more', () => {
    const window = { items: [change('c', '2026-11-24T08:00:00Z')], nextCursor: null, latest: NOW - 3600 };
    const content = whatsNewContent({ days: 7, since: SINCE, window, now: NOW });
    expect(content.text.split('\n')[0]).toBe(
      `Summarise what changed in AI models in the last 7 days, from the change feed data attached (model-feed://changes?since=${SINCE}, oldest first).`,
    );
    expect(content.description).toBe('Model changes of the last 7 days');
    expect(content.attachments).toEqual([
      {
        uri: `model-feed://changes?since=${SINCE}`,
        value: { days: 7, since: SINCE, type: null, vendor: null, ...window },
      },
    ]);
  });

  it('an empty window: says so, gives the date of the latest change, and attaches the recent ones as outside it', () => {
    const content = whatsNewContent({ days: 7, since: SINCE, window: EMPTY, recent: RECENT, now: NOW });
    expect(content.text.split('\n')).toEqual([
      `Nothing changed in AI models in the last 7 days: the change feed has no changes since 2026-11-18 (model-feed://changes?since=${SINCE}, attached, empty).`,
      'The latest change in the feed is from 2026-06-30, 147 days ago. The 2 most recent changes are attached instead (model-feed://changes?limit=5, newest first, marked "outsideWindow": true): all from before the last 7 days.',
      'Say plainly first that nothing changed in the last 7 days, and that the latest change is from 2026-06-30.',
      'Then summarise the attached older changes under a heading that says they are from before the window, never as recent news: group them by kind, and for each give its date, name the model and give before → after where the data has it.',
      'Then list what among them may still need action: deprecations and retirements with their dates, price changes that move costs, API changes that can break clients. Say which still await verification (pending).',
    ]);
    expect(content.description).toBe(
      'No model changes in the last 7 days; the latest, from 2026-06-30, attached instead',
    );
    const [window, recent] = content.attachments;
    expect(window?.value).toMatchObject({ items: [] });
    expect(recent).toEqual({
      uri: 'model-feed://changes?limit=5',
      value: {
        outsideWindow: true,
        note: "The feed's most recent changes, newest first: all from before the last 7 days (since 2026-11-18), not new.",
        days: 7,
        since: SINCE,
        type: null,
        vendor: null,
        ...RECENT,
      },
    });
  });

  it('keeps the filters in both addresses and in the words, and counts one change and one day', () => {
    const one: ChangesPage = { ...RECENT, items: RECENT.items.slice(1), latest: null };
    const since = NOW - 86_400;
    const content = whatsNewContent({
      days: 1,
      since,
      type: 'deprecation',
      vendor: 'openai',
      window: EMPTY,
      recent: one,
      now: NOW,
    });
    const [first, second] = content.text.split('\n');
    expect(first).toBe(
      `Nothing changed in AI models in the last 1 day (type deprecation, vendor openai): the change feed has no changes since 2026-11-24 (model-feed://changes?since=${since}&type=deprecation&model=openai, attached, empty).`,
    );
    // No `latest`: the date is the newest item's detection time.
    expect(second).toBe(
      'The latest change of this kind is from 2026-06-22, 156 days ago. The most recent change is attached instead (model-feed://changes?limit=5&type=deprecation&model=openai, newest first, marked "outsideWindow": true): all from before the last 1 day.',
    );
    expect(content.attachments[1]?.uri).toBe('model-feed://changes?limit=5&type=deprecation&model=openai');
  });

  it('an empty feed: says there is nothing before the window either, and attaches no second resource', () => {
    const content = whatsNewContent({
      days: 7,
      since: SINCE,
      vendor: 'cohere',
      window: EMPTY,
      recent: EMPTY,
      now: NOW,
    });
    expect(content.text).toBe(
      `Nothing changed in AI models in the last 7 days (vendor cohere): the change feed has no changes since 2026-11-18 (model-feed://changes?since=${SINCE}&model=cohere, attached, empty). Nor has it any before the window with these filters.\nThe feed has no changes in this window: say so plainly.`,
    );
    expect(content.description).toBe('No model changes in the last 7 days');
    expect(content.attachments).toHaveLength(1);
  });

  it('the recent changes could not be read: the empty window stands, with the reason', () => {
    const content = whatsNewContent({
      days: 7,
      since: SINCE,
      window: EMPTY,
      recent: { error: 'Daily limit reached.' },
      now: NOW,
    });
    expect(content.text).toContain(
      '(model-feed://changes?since=' +
        `${SINCE}, attached, empty). The changes before the window could not be read: Daily limit reached.\nThe feed has no changes in this window: say so plainly.`,
    );
    expect(content.attachments).toHaveLength(1);
  });
});
