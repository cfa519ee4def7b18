/**
 * The service's REST API answered on this machine from the record of the public origins: the same
 * FeedApi the tools, resources, `watch` and `check` use against the service, with the service's
 * rules (the feed's query rules, the catalog filter, attention, price history). No request leaves
 * the machine but the recorder's fetch of an origin when the newest snapshot is too old.
 */

import type { ChangesQuery, FeedApi, ModelsQuery, ReadNotes } from '../api/client.js';
import type { DataSource } from '../api/data-source.js';
import type { ChangeEvent, ChangesPage, ModelsPage, PriceHistory } from '../api/schemas.js';
import { NotFoundError } from '../errors.js';
import { filterCatalog } from '../service-rules/catalog-filter.js';
import { queryFeed } from '../service-rules/feed-query.js';
import { isoSeconds } from './catalog-events.js';
import { buildCatalog, type PublicCatalog } from './catalog-models.js';
import type { RecordedStateJson } from './recorded-state.js';
import type { Recorded, Recorder } from './recorder.js';
import type { PublicStore, StoredEvent } from './store/store.js';

/** The feed's default page, as the service's. */
const DEFAULT_LIMIT = 20;

export interface PublicApi extends FeedApi {
  dataSource(): DataSource;
}

export interface PublicApiOptions {
  recorder: Recorder;
  store: PublicStore<RecordedStateJson>;
  /** Every origin this source knows, by name: its address, or null when turned off. */
  origins: readonly { name: string; url: string | null }[];
  refreshS: number;
}

export function createPublicApi({ recorder, store, origins, refreshS }: PublicApiOptions): PublicApi {
  let catalogCache: { head: object; feed: readonly StoredEvent[]; catalog: PublicCatalog } | undefined;

  async function read(signal: AbortSignal | undefined, notes: ReadNotes | undefined) {
    const recorded = await recorder.current(signal);
    notes?.onSource?.(sourceOf(recorded));
    if (recorded.stale !== undefined) notes?.onStale?.(recorded.stale);
    const freshUntil = recorded.stale === undefined ? (recorded.head.takenAt + refreshS) * 1000 : Date.now();
    notes?.onFreshUntil?.(freshUntil);
    const feed = await store.readFeed(signal);
    return { recorded, feed };
  }

  function catalogOf(recorded: Recorded, feed: readonly StoredEvent[]): PublicCatalog {
    if (catalogCache?.head === recorded.head && catalogCache.feed === feed) return catalogCache.catalog;
    const events = feed.map((entry) => entry.event);
    const catalog = buildCatalog(recorded.state, events, recorded.head.takenAt);
    catalogCache = { head: recorded.head, feed, catalog };
    return catalog;
  }

  async function listChanges(
    query: ChangesQuery,
    signal?: AbortSignal,
    notes?: ReadNotes,
  ): Promise<ChangesPage> {
    const { feed } = await read(signal, notes);
    const page = queryFeed<ChangeEvent>(feed, { ...query, limit: query.limit ?? DEFAULT_LIMIT });
    return { items: page.items, nextCursor: page.nextCursor, latest: page.latest };
  }

  return {
    listChanges,
    listChangesCached: listChanges,
    async readChanges(query, signal) {
      const page = await listChanges(query, signal);
      return { page, sent: page.items };
    },
    async listModels(query: ModelsQuery, signal?: AbortSignal, notes?: ReadNotes): Promise<ModelsPage> {
      const { recorded, feed } = await read(signal, notes);
      const items = filterCatalog(catalogOf(recorded, feed).models, query);
      return { items, total: items.length };
    },
    async getPriceHistory(modelId: string, signal?: AbortSignal, notes?: ReadNotes): Promise<PriceHistory> {
      const { recorded, feed } = await read(signal, notes);
      const model = catalogOf(recorded, feed).byId.get(modelId);
      if (model === undefined || model.id !== modelId) {
        throw new NotFoundError(
          404,
          'not in the catalog',
          {
            method: 'GET',
            path: `/models/${modelId}/history`,
            host: 'the public record',
            attempts: 0,
            proxy: undefined,
          },
          undefined,
        );
      }
      const points = (await store.readPrices(signal)).get(modelId) ?? [];
      return {
        id: modelId,
        currency: 'USD',
        unit: 'per 1M tokens',
        since: recorded.head.recordingSince,
        points: points.map(({ inputPrice, outputPrice, observedAt }) => ({
          inputPrice,
          outputPrice,
          observedAt,
        })),
      };
    },
    rateLimit: undefined,
    cacheTtlMs: refreshS * 1000,
    dataSource: () => sourceOf(recorder.latest),
  };

  /** What a result says of where it came from: this answer's record, or the newest known. */
  function sourceOf(latest: Recorded | undefined): DataSource {
    // How each origin's newest fetch went, as the record says; the catalog's may be newer news.
    const polled = latest?.head.lastPoll.origins ?? {};
    const catalogName = origins[0]?.name;
    return {
      kind: 'public',
      origins: origins.map((origin) => ({
        ...origin,
        status:
          origin.url === null
            ? 'off'
            : origin.name === catalogName && latest?.stale !== undefined
              ? latest.stale.reason
              : (polled[origin.name] ?? 'not fetched yet'),
      })),
      snapshotAt: latest === undefined ? null : isoSeconds(latest.head.takenAt),
      recordingSince: latest === undefined ? null : isoSeconds(latest.head.recordingSince),
      ...(latest?.stale !== undefined && { stale: latest.stale }),
    };
  }
}
