import { describe, expect, it } from 'vitest';
import { apiSchemas, type ChangeEvent } from '../../src/api/schemas.js';
import { type CatalogFeedState, diffCatalog } from '../../src/public/diff.js';
import type { CatalogSnapshot } from '../../src/public/openrouter-catalog.js';
import { DAY, type ListingFacts, snapshot, T0 } from './catalog-fixtures.js';

/** Diffs each snapshot after the first; returns the events of those later snapshots. */
function feed(...snapshots: CatalogSnapshot[]) {
  let state: CatalogFeedState | null = null;
  const later: ChangeEvent[] = [];
  for (const [index, next] of snapshots.entries()) {
    const diff = diffCatalog(state, next);
    if (index > 0) later.push(...diff.events);
    state = diff.state;
  }
  return later;
}

function brief(events: readonly ChangeEvent[]) {
  return events.map((event) => [event.eventType, event.catalogId, event.beforeValue, event.afterValue]);
}

// deepcogito/cogito-v2.1-671b left the catalog on 2026-08-22 (ModelGraveyard, see catalog-fixtures.ts).
const cogito: ListingFacts = { id: 'deepcogito/cogito-v2.1-671b', name: 'Deep Cogito: Cogito v2.1 671B' };
// deepseek/deepseek-v4-flash's price on 2026-08-20 before and after 06:52Z.
const flash: ListingFacts = {
  id: 'deepseek/deepseek-v4-flash',
  prompt: '0.0000000826',
  completion: '0.0000001652',
};

describe('diffCatalog: the first snapshot', () => {
  it('makes new_model events of the models registered in the 30 days before it, dated from registration', () => {
    const first = snapshot(0, [
      { id: 'tencent/hy-mt2-30b-a3b', created: T0 - 2 * DAY },
      { id: 'tencent/hy-mt2-30b-a3b:free', created: T0 - DAY },
      { id: 'mistralai/ministral-8b', created: T0 - 30 * DAY - 1 },
      cogito,
    ]);
    const { events } = diffCatalog(null, first);
    expect(brief(events)).toEqual([['new_model', 'tencent/hy-mt2-30b-a3b', null, 'tencent/hy-mt2-30b-a3b']]);
    expect(events[0]?.detectedAt).toBe(new Date((T0 - 2 * DAY) * 1000).toISOString().replace('.000', ''));
  });
});

describe('diffCatalog: later snapshots', () => {
  it('makes a new_model of a base id never seen, dated from the snapshot; a new variant is not one', () => {
    const events = feed(
      snapshot(0, [cogito, { id: 'thinkingmachines/inkling-small' }]),
      snapshot(6, [
        cogito,
        { id: 'thinkingmachines/inkling-small' },
        { id: 'thinkingmachines/inkling-small:free', prompt: '0', completion: '0' },
        { id: 'stealth/ox-alpha', expiration: '2098-12-31', created: T0 - 100 * DAY },
        { id: 'vendor/short-lived', expiration: '2026-09-30' },
      ]),
    );
    expect(brief(events)).toEqual([
      ['new_model', 'stealth/ox-alpha', null, 'stealth/ox-alpha'],
      ['new_model', 'vendor/short-lived', null, 'vendor/short-lived'],
    ]);
    expect(events[1]?.summary).toContain('to be removed after 2026-09-30');
    expect(events[0]).toMatchObject({
      detectedAt: '2026-08-20T07:26:00Z',
      publishedAt: '2026-05-12T01:26:00Z',
    });
  });

  it('makes a price_change with before and after values, and none for float noise or a steady "-1"', () => {
    const events = feed(
      snapshot(0, [
        flash,
        { id: 'qwen/qwen-2.5-coder-32b-instruct', prompt: '0.0000002' },
        { id: 'openrouter/auto', prompt: '-1' },
      ]),
      snapshot(6, [
        { ...flash, prompt: '0.000000088606', completion: '0.000000177212' },
        { id: 'qwen/qwen-2.5-coder-32b-instruct', prompt: '0.00000020000000000000002' },
        { id: 'openrouter/auto', prompt: '-1' },
      ]),
    );
    expect(brief(events)).toEqual([
      [
        'price_change',
        'deepseek/deepseek-v4-flash',
        'in $0.0826 / out $0.1652 per 1M tokens',
        'in $0.088606 / out $0.177212 per 1M tokens',
      ],
    ]);
  });

  it('makes a deprecation when an expiration date is set, moved or withdrawn, never for the placeholder', () => {
    const ids = [
      'nvidia/nemotron-nano-9b-v2:free',
      'google/gemini-2.0-flash-001',
      'z-ai/glm-4.5',
      'stealth/ox-alpha',
    ];
    const events = feed(
      snapshot(0, [
        { id: ids[0] as string },
        { id: ids[1] as string, expiration: '2026-03-31' },
        { id: ids[2] as string, expiration: '2026-02-12' },
        { id: ids[3] as string },
      ]),
      snapshot(6, [
        { id: ids[0] as string, expiration: '2026-08-24' },
        { id: ids[1] as string, expiration: '2026-06-01' },
        { id: ids[2] as string },
        { id: ids[3] as string, expiration: '2098-12-31' },
      ]),
    );
    expect(brief(events)).toEqual([
      ['deprecation', 'google/gemini-2.0-flash-001', 'expires 2026-03-31', 'expires 2026-06-01'],
      ['deprecation', 'nvidia/nemotron-nano-9b-v2:free', null, 'expires 2026-08-24'],
      ['deprecation', 'z-ai/glm-4.5', 'expires 2026-02-12', 'no expiration date'],
    ]);
  });

  it('makes an api_change when the context length or the modalities change, not when they are reordered', () => {
    // qwen/qwen3.8-27b went from 262,144 to 1,000,000 tokens of context on 2026-08-20.
    const events = feed(
      snapshot(0, [
        { id: 'qwen/qwen3.8-27b', context: 262144 },
        { id: 'meta/muse', input: ['text', 'image'] },
      ]),
      snapshot(6, [
        { id: 'qwen/qwen3.8-27b', context: 1000000 },
        { id: 'meta/muse', input: ['image', 'text'] },
      ]),
      snapshot(12, [
        { id: 'qwen/qwen3.8-27b', context: 1000000 },
        { id: 'meta/muse', input: ['image', 'text', 'audio'] },
      ]),
    );
    expect(brief(events)).toEqual([
      ['api_change', 'qwen/qwen3.8-27b', 'context 262,144 tokens', 'context 1,000,000 tokens'],
      ['api_change', 'meta/muse', 'modalities image+text->text', 'modalities audio+image+text->text'],
    ]);
  });

  it('declares a base id removed only when it is missing from two snapshots in a row, once', () => {
    const other: ListingFacts = { id: 'openai/gpt-oss-20b' };
    const events = feed(
      snapshot(0, [cogito, other, { id: 'openai/gpt-oss-20b:free' }]),
      snapshot(6, [other]),
      snapshot(12, [cogito, other]),
      snapshot(18, [other]),
      snapshot(24, [other]),
      snapshot(30, [other]),
    );
    expect(brief(events)).toEqual([['deprecation', cogito.id, 'listed', 'removed']]);
    expect(events[0]).toMatchObject({ detectedAt: '2026-08-21T01:26:00Z' });
    expect(events[0]?.summary).toContain('2026-08-20T19:26:00Z');
  });

  it('says when a removed model returns, and does not call it new', () => {
    const events = feed(snapshot(0, [cogito]), snapshot(6, []), snapshot(12, []), snapshot(18, [cogito]));
    expect(brief(events)).toEqual([
      ['deprecation', cogito.id, 'listed', 'removed'],
      ['deprecation', cogito.id, 'removed', 'listed'],
    ]);
  });

  it('follows an alias’s own price while it points at one model, and gives no event when it moves', () => {
    // ~deepseek/deepseek-v4-flash-latest: its own price ($0.065 / $0.18, then $0.14 out) on
    // 2026-08-20, beside its target's ($0.14 / $0.28); ~openai/gpt-latest moved to GPT-5.6 Sol.
    const flashAlias = {
      id: '~deepseek/deepseek-v4-flash-latest',
      aliasTarget: 'deepseek/deepseek-v4-flash-0731',
      prompt: '0.000000065',
      completion: '0.00000018',
    };
    const gptAlias = { id: '~openai/gpt-latest', aliasTarget: 'openai/gpt-5.5', prompt: '0.0000025' };
    const targets: ListingFacts[] = [
      { id: 'deepseek/deepseek-v4-flash-0731', prompt: '0.00000014', completion: '0.00000028' },
      { id: 'openai/gpt-5.5', prompt: '0.0000025' },
      { id: 'openai/gpt-5.6-sol', prompt: '0.000002' },
    ];
    const events = feed(
      snapshot(0, [...targets, flashAlias, gptAlias]),
      snapshot(6, [
        ...targets,
        { ...flashAlias, completion: '0.00000014' },
        { ...gptAlias, aliasTarget: 'openai/gpt-5.6-sol', prompt: '0.000002' },
      ]),
    );
    expect(brief(events)).toEqual([
      [
        'price_change',
        '~deepseek/deepseek-v4-flash-latest',
        'in $0.065 / out $0.18 per 1M tokens',
        'in $0.065 / out $0.14 per 1M tokens',
      ],
    ]);
  });
});

describe('diffCatalog: the events', () => {
  const run = () =>
    feed(
      snapshot(0, [flash, cogito]),
      snapshot(6, [{ ...flash, prompt: '0.00000009' }, cogito, { id: 'z-ai/glm-5.3' }]),
    );

  it('have the service’s shape, pending, with the vendor as the model slug', () => {
    for (const event of run()) {
      expect(apiSchemas().ChangeEvent.parse(event)).toEqual(event);
      expect(event).toMatchObject({ verificationStatus: 'pending', official: false });
    }
    expect(run().map((event) => event.model.slug)).toEqual(['deepseek', 'z-ai']);
  });

  it('have ids that re-deriving gives again, and that differ with the snapshot’s time', () => {
    const ids = run().map((event) => event.id);
    expect(run().map((event) => event.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const later = feed(snapshot(0, [flash]), snapshot(12, [{ ...flash, prompt: '0.00000009' }]));
    expect(later[0]?.id).not.toBe(ids[0]);
  });
});
