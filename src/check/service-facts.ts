/**
 * What `check` asks the service, and no more, however large the tree: the catalog, the feed's
 * deprecation notices, and one price history per distinct referenced model, at most
 * MAX_PRICE_CHECKED of them. Every read is a cached one (catalog answers for the TTL, on disk too),
 * so a second run within the TTL spends nothing.
 */

import type { FeedApi, ReadNotes } from '../api/client.js';
import type { ChangeEvent, Model, PriceHistory } from '../api/schemas.js';
import { NotFoundError } from '../errors.js';

/** At most this many models get their price history read; the rest are reported as not checked. */
export const MAX_PRICE_CHECKED = 50;
/** The feed's largest page. */
const PAGE_LIMIT = 100;
/** At most this many pages of notices (10,000): a feed that never ends is not followed for ever. */
const MAX_NOTICE_PAGES = 100;
/** History reads in flight at once. */
const HISTORY_CONCURRENCY = 4;

/** Every deprecation notice in the feed, oldest first, page by page from the start. */
async function allDeprecations(api: FeedApi, signal: AbortSignal, notes: ReadNotes): Promise<ChangeEvent[]> {
  const notices: ChangeEvent[] = [];
  let since = 0;
  for (let page = 0; page < MAX_NOTICE_PAGES; page++) {
    const read = await api.listChangesCached(
      { type: 'deprecation', since, limit: PAGE_LIMIT },
      signal,
      notes,
    );
    notices.push(...read.items);
    // The client refuses a page whose latest does not move past since (api/client.ts).
    if (read.items.length < PAGE_LIMIT || read.latest === null) break;
    since = read.latest;
  }
  return notices;
}

/**
 * The catalog (what references are matched against) and every deprecation notice, read at once.
 * `notes.onStale` hears of an older copy that answered while the service was down.
 */
export async function readCatalogAndNotices(
  api: FeedApi,
  signal: AbortSignal,
  notes: ReadNotes = {},
): Promise<{ catalog: Model[]; deprecations: ChangeEvent[] }> {
  const [catalog, deprecations] = await Promise.all([
    api.listModels({}, signal, notes).then((page) => page.items),
    allDeprecations(api, signal, notes),
  ]);
  return { catalog, deprecations };
}

/** A referenced catalog model whose price history the service did not give, and why. */
export interface NoPriceHistory {
  model: string;
  /** e.g. "HTTP 404". */
  reason: string;
}

/**
 * The price histories of the first MAX_PRICE_CHECKED models of `referenced` (catalog ids, the most
 * referenced first), and the ids of the rest, which are not price-checked. A history the service
 * answers 404 for (the model removed since the catalog was read, or a service out of step with
 * itself) is noted against that model, and the rest go on: one model's history is no reason to
 * withhold every other finding.
 */
export async function readHistories(
  api: FeedApi,
  referenced: readonly string[],
  signal: AbortSignal,
): Promise<{
  histories: Map<string, PriceHistory>;
  notPriceChecked: string[];
  noPriceHistory: NoPriceHistory[];
}> {
  const checked = referenced.slice(0, MAX_PRICE_CHECKED);
  const histories = new Map<string, PriceHistory>();
  const missing = new Map<string, NoPriceHistory>();
  let next = 0;
  const worker = async () => {
    while (next < checked.length) {
      const id = checked[next++]!;
      try {
        histories.set(id, await api.getPriceHistory(id, signal));
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        missing.set(id, { model: id, reason: `HTTP ${error.status}` });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(HISTORY_CONCURRENCY, checked.length) }, worker));
  return {
    histories,
    notPriceChecked: referenced.slice(MAX_PRICE_CHECKED),
    // In the order of `referenced`, whichever read answered first.
    noPriceHistory: checked.flatMap((id) => missing.get(id) ?? []),
  };
}
