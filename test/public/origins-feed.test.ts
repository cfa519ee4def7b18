import { describe, expect, it } from 'vitest';
import { apiSchemas, type ChangeEvent } from '../../src/api/schemas.js';
import { isoSeconds } from '../../src/public/catalog-events.js';
import { diffCatalog } from '../../src/public/diff.js';
import { type HuggingFaceAnswer, parseHuggingFaceListings } from '../../src/public/huggingface.js';
import type { CatalogSnapshot } from '../../src/public/openrouter-catalog.js';
import { DEPRECATIONS_SOURCE_NAME, HUGGINGFACE_SOURCE_NAME } from '../../src/public/origin-events.js';
import {
  deriveOriginEvents,
  mergeRunEvents,
  type OriginInputs,
  type OriginsState,
} from '../../src/public/origins-feed.js';
import { type DeprecationList, parseVendorDeprecations } from '../../src/public/vendor-deprecations.js';
import { DAY, type ListingFacts, snapshot, T0 } from './catalog-fixtures.js';
import {
  deprecationRecord,
  deprecationsAnswer,
  listing,
  nanoRecord,
  o3Record,
  type RecordFacts,
} from './origin-fixtures.js';

// Ids, names and links as the aggregator's catalog listed them on 2026-08-22.
// Registered 2026-08-14 (`created` 1786722910), six days before T0.
const qwen: ListingFacts = {
  id: 'qwen/qwen3.8-27b',
  name: 'Qwen: Qwen3.8 27B',
  hf: 'Qwen/Qwen3.8-27B',
  created: T0 - 6 * DAY,
};
const tencent: ListingFacts = {
  id: 'tencent/hy-mt2-30b-a3b',
  name: 'Tencent: Hy-MT2-30B-A3B',
  hf: 'tencent/Hy-MT2-30B-A3B',
};
const nano: ListingFacts = { id: 'openai/gpt-4.1-nano', name: 'OpenAI: GPT-4.1 Nano' };
const nanoBatch: ListingFacts = { id: 'openai/gpt-4.1-nano:batch', name: 'OpenAI: GPT-4.1 Nano (batch)' };
const o3: ListingFacts = { id: 'openai/o3', name: 'OpenAI: o3' };

function deprecations(...facts: RecordFacts[]): DeprecationList {
  const result = parseVendorDeprecations(deprecationsAnswer(facts.map(deprecationRecord)));
  if (!result.ok) throw new Error(result.reason);
  return result.list;
}

function uploads(...answers: HuggingFaceAnswer[]) {
  return parseHuggingFaceListings(answers);
}

function brief(events: readonly ChangeEvent[]) {
  return events.map((event) => [
    event.eventType,
    event.catalogId,
    event.afterValue,
    event.verificationStatus,
  ]);
}

/** One run at `hours` after T0: the catalog's own diff, then the origins', as the refresh chains them. */
function run(
  previous: { catalog: ReturnType<typeof diffCatalog>['state'] | null; origins: OriginsState | null },
  catalog: CatalogSnapshot,
  origins: Omit<OriginInputs, 'catalog'>,
) {
  const catalogDiff = diffCatalog(previous.catalog, catalog);
  const originDiff = deriveOriginEvents(
    previous.origins,
    { catalog, ...origins },
    catalogDiff.events,
    catalog.takenAt,
  );
  return {
    catalogEvents: catalogDiff.events,
    events: originDiff.events,
    next: { catalog: catalogDiff.state, origins: originDiff.state },
  };
}

const none = { catalog: null, origins: null };

describe('deriveOriginEvents: uploads to the open model repository', () => {
  const first = run(none, snapshot(0, [qwen, tencent]), {
    huggingFace: uploads(
      listing('Qwen', [
        { id: 'Qwen/Qwen3.8-27B', createdDaysAgo: 3 },
        { id: 'Qwen/Qwen3.8-27B-Base', createdDaysAgo: 3 },
        { id: 'Qwen/Qwen3.8-27B-FP8', createdDaysAgo: 2, quantizes: 'Qwen/Qwen3.8-27B' },
        { id: 'Qwen/Qwen3-Coder-Next', createdDaysAgo: 45 },
      ]),
      listing('tencent', [{ id: 'tencent/Hy-MT2-30B-A3B', createdDaysAgo: 40 }]),
    ),
  });

  it('on a first look makes one event per base uploaded in the last 30 days, dated from its creation', () => {
    expect(brief(first.events)).toEqual([
      ['open_source_surge', 'qwen/qwen3.8-27b', 'Qwen/Qwen3.8-27B', 'official'],
    ]);
    const [event] = first.events;
    expect(event).toMatchObject({
      detectedAt: isoSeconds(T0 - 3 * DAY),
      publishedAt: isoSeconds(T0 - 3 * DAY),
      sourceUrl: 'https://huggingface.co/Qwen/Qwen3.8-27B',
      sourceName: HUGGINGFACE_SOURCE_NAME,
      official: true,
      model: { slug: 'qwen', name: 'Qwen: Qwen3.8 27B', company: null, accentColor: null },
    });
    expect(event?.summary).toContain('Qwen/Qwen3.8-27B-Base, Qwen/Qwen3.8-27B-FP8');
    expect(apiSchemas().ChangeEvent.safeParse(event).success).toBe(true);
  });

  it('later makes an event of a new base only, dated from the run; a new quantisation of a seen base is none', () => {
    const second = run(first.next, snapshot(24, [qwen, tencent]), {
      huggingFace: uploads(
        listing('Qwen', [
          { id: 'Qwen/Qwen3.8-27B-Instruct-GGUF', createdDaysAgo: 0 },
          { id: 'Qwen/Qwen3.9-4B', createdDaysAgo: 0 },
          { id: 'Qwen/Qwen3.8-27B', createdDaysAgo: 3 },
        ]),
      ),
    });
    expect(brief(second.events)).toEqual([['open_source_surge', null, 'Qwen/Qwen3.9-4B', 'official']]);
    expect(second.events[0]).toMatchObject({
      detectedAt: isoSeconds(T0 + DAY),
      model: { slug: 'qwen', name: 'Qwen3.9-4B' },
    });
    // The same listing again gives nothing: the event ids are stable, the bases remembered.
    const third = run(second.next, snapshot(30, [qwen, tencent]), {
      huggingFace: uploads(listing('Qwen', [{ id: 'Qwen/Qwen3.9-4B', createdDaysAgo: 0 }])),
    });
    expect(third.events).toEqual([]);
  });

  it('makes no event of a fresh upload of a base the catalog has listed for long', () => {
    const old = { id: 'qwen/qwen3-8b', name: 'Qwen: Qwen3 8B', hf: 'Qwen/Qwen3-8B', created: T0 - 200 * DAY };
    const later = run(first.next, snapshot(24, [qwen, tencent, old]), {
      huggingFace: uploads(listing('Qwen', [{ id: 'Qwen/Qwen3-8B-GGUF', createdDaysAgo: 0 }])),
    });
    expect(later.events).toEqual([]);
  });

  it("treats an organisation read for the first time as a first look, and an organisation not the vendor's own as pending", () => {
    const later = run(
      first.next,
      snapshot(24, [qwen, tencent, { id: 'mancer/weaver', hf: 'Gryphe/MythoMax-L2-13b' }]),
      {
        huggingFace: uploads(
          listing('Gryphe', [
            { id: 'Gryphe/MythoMax-L2-13b', createdDaysAgo: 60 },
            { id: 'Gryphe/Pantheon-2', createdDaysAgo: 10 },
          ]),
        ),
      },
    );
    expect(brief(later.events)).toEqual([['open_source_surge', null, 'Gryphe/Pantheon-2', 'pending']]);
    expect(later.events[0]?.model.slug).toBe('mancer');
  });

  it('keeps its state when the repository could not be read, and the state is plain JSON', () => {
    const off = run(first.next, snapshot(24, [qwen, tencent]), {});
    expect(off.events).toEqual([]);
    expect(off.next.origins.uploads).toEqual(first.next.origins.uploads);
    expect(JSON.parse(JSON.stringify(off.next.origins))).toEqual(off.next.origins);
    expect(Object.keys(first.next.origins.uploads).sort()).toEqual([
      'qwen/qwen3-coder-next',
      'qwen/qwen3.8-27b',
      'tencent/hy-mt2-30b-a3b',
    ]);
  });
});

describe('deriveOriginEvents: vendor-cited deprecations', () => {
  const oldMinistral: RecordFacts = {
    provider: 'mistral',
    model: 'ministral-8b-2410',
    name: 'Ministral 8B',
    deprecated: '2025-12-02',
    shutdown: '2025-12-31',
    source: 'https://docs.mistral.ai/getting-started/models/models_overview/',
  };
  const catalog = [nano, nanoBatch, o3, { id: 'mistralai/ministral-8b', name: 'Mistral: Ministral 8B' }];
  const first = run(none, snapshot(0, catalog), { deprecations: deprecations(nanoRecord, oldMinistral) });

  it('on the first read makes official events of ends still ahead or within 30 days; the rest is the baseline', () => {
    expect(brief(first.events)).toEqual([
      [
        'deprecation',
        'openai/gpt-4.1-nano',
        'deprecated 2026-04-22; shutdown 2026-10-23; replacement openai/gpt-5.6-luna',
        'official',
      ],
    ]);
    expect(first.events[0]).toMatchObject({
      title: 'OpenAI: GPT-4.1 Nano shuts down on 2026-10-23',
      sourceUrl: 'https://developers.openai.com/api/docs/deprecations',
      sourceName: DEPRECATIONS_SOURCE_NAME,
      publishedAt: '2026-04-22T00:00:00Z',
      detectedAt: isoSeconds(T0),
      model: { slug: 'openai', name: 'OpenAI: GPT-4.1 Nano' },
    });
    expect(apiSchemas().ChangeEvent.safeParse(first.events[0]).success).toBe(true);
  });

  it('later makes an event of a new record and of a moved date, saying what it was', () => {
    const moved = { ...nanoRecord, shutdown: '2026-11-23' };
    const second = run(first.next, snapshot(6, catalog), {
      deprecations: deprecations(moved, oldMinistral, o3Record),
    });
    expect(brief(second.events)).toEqual([
      [
        'deprecation',
        'openai/gpt-4.1-nano',
        'deprecated 2026-04-22; shutdown 2026-11-23; replacement openai/gpt-5.6-luna',
        'official',
      ],
      [
        'deprecation',
        'openai/o3',
        'deprecated 2026-06-11; shutdown 2026-12-11; replacement openai/gpt-5.6-sol',
        'official',
      ],
    ]);
    expect(second.events[0]?.beforeValue).toBe(
      'deprecated 2026-04-22; shutdown 2026-10-23; replacement openai/gpt-5.6-luna',
    );
    const again = run(second.next, snapshot(12, catalog), {
      deprecations: deprecations(moved, oldMinistral, o3Record),
    });
    expect(again.events).toEqual([]);
  });

  it('files a record no catalog id matches under its vendor, without a catalog id', () => {
    const realtime: RecordFacts = {
      provider: 'openai',
      model: 'gpt-realtime-mini',
      name: 'gpt-realtime-mini',
      shutdown: '2026-09-10',
    };
    const second = run(first.next, snapshot(6, catalog), {
      deprecations: deprecations(nanoRecord, realtime),
    });
    expect(brief(second.events)).toEqual([['deprecation', null, 'shutdown 2026-09-10', 'official']]);
    expect(second.events[0]?.model).toMatchObject({ slug: 'openai', name: 'gpt-realtime-mini' });
  });
});

describe('deriveOriginEvents: one event for a change two origins see', () => {
  const o3Expiring = { ...o3, expiration: '2026-12-11' };

  it('publishes a catalog deprecation of the same run again under its id, official, citing the vendor', () => {
    const start = run(none, snapshot(0, [nano, o3]), { deprecations: deprecations() });
    const next = run(start.next, snapshot(6, [nano, o3Expiring]), { deprecations: deprecations(o3Record) });
    const [pending] = next.catalogEvents;
    expect(brief(next.catalogEvents)).toEqual([
      ['deprecation', 'openai/o3', 'expires 2026-12-11', 'pending'],
    ]);
    expect(next.events).toHaveLength(1);
    expect(next.events[0]).toMatchObject({
      id: pending?.id,
      eventType: 'deprecation',
      catalogId: 'openai/o3',
      afterValue: 'expires 2026-12-11',
      verificationStatus: 'official',
      official: true,
      sourceUrl: 'https://developers.openai.com/api/docs/deprecations',
      sourceName: DEPRECATIONS_SOURCE_NAME,
      publishedAt: '2026-06-11T00:00:00Z',
    });
    expect(next.events[0]?.summary).toContain(
      "The vendor's own page confirms: deprecated 2026-06-11; shutdown 2026-12-11",
    );
    expect(mergeRunEvents(next.catalogEvents, next.events)).toEqual(next.events);
  });

  it('publishes a pending catalog deprecation of an earlier run again when the vendor confirms it later', () => {
    const start = run(none, snapshot(0, [nano, o3]), { deprecations: deprecations() });
    const announced = run(start.next, snapshot(6, [nano, o3Expiring]), { deprecations: deprecations() });
    const [pending] = announced.catalogEvents;
    expect(announced.events).toEqual([]);
    expect(announced.next.origins.pending.map((event) => event.id)).toEqual([pending?.id]);
    // The list is unreachable for a while: the pending event stays remembered.
    const off = run(announced.next, snapshot(12, [nano, o3Expiring]), {});
    const confirmed = run(off.next, snapshot(18, [nano, o3Expiring]), {
      deprecations: deprecations(o3Record),
    });
    expect(brief(confirmed.events)).toEqual([['deprecation', 'openai/o3', 'expires 2026-12-11', 'official']]);
    expect(confirmed.events[0]?.id).toBe(pending?.id);
    expect(confirmed.next.origins.pending).toEqual([]);
  });

  it('forgets a pending catalog deprecation the catalog took back before any vendor confirmed it', () => {
    const start = run(none, snapshot(0, [nano, o3]), { deprecations: deprecations() });
    const announced = run(start.next, snapshot(6, [nano, o3Expiring]), { deprecations: deprecations() });
    const withdrawn = run(announced.next, snapshot(12, [nano, o3]), { deprecations: deprecations() });
    expect(brief(withdrawn.catalogEvents)).toEqual([
      ['deprecation', 'openai/o3', 'no expiration date', 'pending'],
    ]);
    expect(withdrawn.next.origins.pending).toEqual([]);
  });

  it("never merges a variant's expiration: the aggregator dropping a listing is not the vendor's end", () => {
    const start = run(none, snapshot(0, [nano, nanoBatch]), { deprecations: deprecations(nanoRecord) });
    const next = run(start.next, snapshot(6, [nano, { ...nanoBatch, expiration: '2026-09-01' }]), {
      deprecations: deprecations(nanoRecord),
    });
    expect(brief(next.catalogEvents)).toEqual([
      ['deprecation', 'openai/gpt-4.1-nano:batch', 'expires 2026-09-01', 'pending'],
    ]);
    expect(next.events).toEqual([]);
    expect(next.next.origins.pending).toEqual([]);
  });
});

describe('mergeRunEvents', () => {
  it("replaces a catalog event by the origins' event of the same id in place, then adds the others", () => {
    const a = { id: 'a', title: 'catalog a' } as ChangeEvent;
    const b = { id: 'b', title: 'catalog b' } as ChangeEvent;
    const official = { id: 'a', title: 'official a' } as ChangeEvent;
    const upload = { id: 'c', title: 'upload' } as ChangeEvent;
    expect(mergeRunEvents([a, b], [official, upload])).toEqual([official, b, upload]);
  });
});
