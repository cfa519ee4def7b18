/**
 * Following `GET /api/v1/changes` from a cursor: the `since` to send is the last `latest` received.
 * The service gives each item a unique change time (runner.md), so sending `latest` back never
 * skips an item, however many share a second. The cursor moves only when the caller has accepted
 * the page: a crash redelivers at most that page, and skips nothing.
 */

import type { FeedApi } from '../api/client.js';
import type { ChangeEvent } from '../api/schemas.js';
import {
  CursorStuckError,
  FeedContractError,
  type RequestFacts,
  UnexpectedResponseError,
  UnreadableChangeError,
} from '../errors.js';

/** The feed's own filters, sent to the service. */
export interface FeedFilters {
  type?: string | undefined;
  /** Vendor slug. */
  model?: string | undefined;
}

/** The largest page the service serves: fewest calls for a backlog. */
export const PAGE_SIZE = 100;

export interface FeedItem {
  /** As the service sent it. */
  sent: Readonly<Record<string, unknown>>;
  event: ChangeEvent;
}

export interface FeedPage {
  items: FeedItem[];
  /** The cursor after this page; equal to the one sent when the page is empty. */
  cursor: number;
  /** A full page: more may be waiting right now. */
  full: boolean;
}

type ChangesReader = Pick<FeedApi, 'readChanges'>;

/**
 * How far past this machine's clock a `latest` may be. Change times are unique seconds, so a burst
 * of changes detected in one second runs ahead of the wall clock by one second per change, and
 * clocks drift; a day covers both by far, and still refuses a milliseconds value or a huge number.
 */
export const MAX_AHEAD_S = 86_400;

/** Ids are the service's text: a message quotes a bounded part of them (made one-line where shown). */
function quoteId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

/** What the checks of a page read of each change: an unreadable one may tell no more than these. */
type PagedChange = Pick<ChangeEvent, 'id'> & { detectedAt?: string | null | undefined };

function describeItems(items: readonly PagedChange[]): string {
  const first = items[0];
  const last = items.at(-1);
  if (!first || !last) return 'no changes';
  if (items.length === 1) return `1 change (${quoteId(first.id)})`;
  return `${items.length} changes (${quoteId(first.id)} … ${quoteId(last.id)})`;
}

/** Whole Unix seconds of an ISO time, or undefined when it is not one. */
function seconds(iso: string | null | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

function pastTheClock(latest: number, nowS: number): string | undefined {
  if (latest <= nowS + MAX_AHEAD_S) return undefined;
  const ahead = latest - nowS;
  const how =
    ahead > 365 * 86_400
      ? `${Math.round(ahead / (365.25 * 86_400)).toLocaleString('en-US')} years`
      : `${Math.round(ahead / 86_400)} days`;
  const unit = latest > 1e11 && latest < 1e14 ? '; it looks like milliseconds, not seconds' : '';
  return `${how} past this machine's clock (${new Date(nowS * 1000).toISOString()})${unit}`;
}

/**
 * Why the page after `cursor` cannot be followed, or undefined when it can. Its items are oldest
 * first, each with a unique whole-second change time after the cursor and never before its
 * `detectedAt`, and `latest` is the last one's (runner.md). So item i of n needs n-1-i seconds of
 * its own up to `latest`: a page with fewer seconds than changes (more than `limit` changes in one
 * second, say) would make the next `since` skip the rest of them.
 */
export function pageAfterProblem(
  items: readonly PagedChange[],
  latest: number | null,
  cursor: number,
  nowS: number,
): string | undefined {
  if (items.length === 0) return undefined;
  const page = `a page of ${describeItems(items)} since ${cursor} came with latest=${latest}`;
  // Without a `latest` past the cursor, sending it back would ask for the same page forever.
  if (latest === null || latest <= cursor) return `${page}, which does not move past it`;
  const ahead = pastTheClock(latest, nowS);
  if (ahead) return `${page}, ${ahead}`;
  for (const [index, item] of items.entries()) {
    const detected = seconds(item.detectedAt);
    const earliest = Math.max(cursor + 1, detected ?? cursor + 1);
    const after = items.length - 1 - index;
    if (earliest + after <= latest) continue;
    if (earliest === cursor + 1) {
      return `${page}: ${items.length} changes need ${items.length} change times after ${cursor}, and that leaves ${latest - cursor} (change times are unique seconds)`;
    }
    return `${page}: the change ${quoteId(item.id)} was detected at ${item.detectedAt}, so it and the ${after} after it need change times from ${earliest} to at least ${earliest + after}, past latest (change times are unique seconds, never before detection)`;
  }
  return undefined;
}

/** Why the newest-first head page cannot give a starting point, or undefined when it can. */
export function headPageProblem(
  items: readonly ChangeEvent[],
  latest: number | null,
  nowS: number,
): string | undefined {
  const newest = items[0];
  if (!newest) return undefined;
  const page = `the newest change, ${describeItems([newest])}, came with latest=${latest}`;
  // Starting from 0 instead would replay the whole history as if it were new.
  if (latest === null) return `${page}, so there is no change time to start after`;
  const ahead = pastTheClock(latest, nowS);
  if (ahead) return `${page}, ${ahead}`;
  const detected = seconds(newest.detectedAt);
  if (detected !== undefined && latest < detected) {
    return `${page}, before that change was detected (${newest.detectedAt})`;
  }
  return undefined;
}

/** The request a page came from, as an error names it (the host is the client's to know). */
/** The request a page was read with, for a message; `host` is '' when the caller does not know it. */
function changesRequest(query: Record<string, string | number | undefined>, host: string): RequestFacts {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  return { method: 'GET', path: `/api/v1/changes?${search}`, host, attempts: 1, proxy: undefined };
}

/** The page after `cursor`, oldest first. Throws FeedContractError for one that cannot be followed. */
export async function readPageAfter(
  api: ChangesReader,
  cursor: number,
  filters: FeedFilters,
  signal: AbortSignal,
  now: () => number = Date.now,
  limit = PAGE_SIZE,
  host = '',
): Promise<FeedPage> {
  let read: Awaited<ReturnType<ChangesReader['readChanges']>>;
  try {
    read = await api.readChanges({ since: cursor, limit, type: filters.type, model: filters.model }, signal);
  } catch (error) {
    // The client refused a `latest` that does not move past `since`: a broken contract, not a change
    // that cannot be read, so no page is asked for again.
    if (error instanceof CursorStuckError) throw new FeedContractError(error.detail, error.request, cursor);
    throw error;
  }
  const { page, sent } = read;
  if (page.items.length === 0) return { items: [], cursor, full: false };
  const problem = pageAfterProblem(page.items, page.latest, cursor, Math.floor(now() / 1000));
  if (problem || page.latest === null) {
    throw new FeedContractError(
      problem ?? 'no latest',
      changesRequest({ since: cursor, limit, ...filters }, host),
      cursor,
    );
  }
  return {
    items: page.items.map((event, index) => ({ event, sent: sent[index] ?? event })),
    cursor: page.latest,
    full: page.items.length >= limit,
  };
}

/**
 * Where "from now on" begins: the change time of the newest item (one call), not this machine's
 * clock, which may be off from the service's. An empty feed starts from 0.
 */
export async function newestChangeTime(
  api: ChangesReader,
  filters: FeedFilters,
  signal: AbortSignal,
  now: () => number = Date.now,
  host = '',
): Promise<number> {
  const { page } = await api.readChanges({ limit: 1, type: filters.type, model: filters.model }, signal);
  const problem = headPageProblem(page.items, page.latest, Math.floor(now() / 1000));
  if (problem)
    throw new FeedContractError(problem, changesRequest({ limit: 1, ...filters }, host), undefined);
  return page.latest ?? 0;
}

/** A change moved past unread, at the user's `--skip`. */
export interface SkippedChange {
  id: string;
  /** Its change time: the cursor now stands on it. */
  changeTime: number;
  /** Why it could not be read. */
  reason: string;
}

export interface DrainOptions {
  api: ChangesReader;
  filters: FeedFilters;
  cursor: number;
  /** Takes a whole page; the cursor moves past it only once this resolves. */
  accept(page: FeedPage): Promise<void>;
  /** Called before each request goes out: the pacer counts it. */
  onCall?(): void;
  /** This machine's clock (ms), to refuse a `latest` far past it. */
  now?(): number;
  /**
   * The one unreadable change to move past, by id (`watch --skip`). `record` keeps it and moves the
   * cursor onto its change time; draining goes on after it resolves.
   */
  skip?: { id: string; record(change: SkippedChange): Promise<void> } | undefined;
  /** The service's host, named in a message about a broken answer. @default '' (not named) */
  host?: string;
  signal: AbortSignal;
}

/**
 * A 2xx answer whose body could not be used: too large, past the body limits, not the documented
 * shape, not JSON. One change can cause it; so can a captive portal. Never a broken `latest`.
 */
function isUnreadable(error: unknown): error is UnexpectedResponseError {
  return (
    error instanceof UnexpectedResponseError &&
    !(error instanceof FeedContractError) &&
    error.status >= 200 &&
    error.status < 300
  );
}

/**
 * Reads and hands over pages until one is not full. Bounded: each page moves the cursor strictly
 * forward (readPageAfter refuses one that does not), and the feed is finite.
 *
 * A page that cannot be read is asked for again at half the size, down to a single change, so
 * every change before an unreadable one is delivered (7 more calls from 100). When that single
 * change cannot be read either, one more call asks for a page that must be empty (after a `since`
 * past any possible change time): if that one reads, the service is fine and the fault is the
 * change, an UnreadableChangeError; if not, the first failure goes on as an outage. The one change
 * `options.skip` names is moved past instead, once, if its answer told its id and change time.
 */
export async function drainFeed(options: DrainOptions): Promise<void> {
  let cursor = options.cursor;
  let limit = PAGE_SIZE;
  let skip = options.skip;
  for (;;) {
    options.onCall?.();
    let page: FeedPage;
    try {
      page = await readPageAfter(
        options.api,
        cursor,
        options.filters,
        options.signal,
        options.now,
        limit,
        options.host,
      );
    } catch (error) {
      if (!isUnreadable(error) || options.signal.aborted) throw error;
      if (limit > 1) {
        limit = Math.ceil(limit / 2);
        continue;
      }
      try {
        await answersEmptyPage(options);
      } catch {
        throw error;
      }
      // Only a page of one names the change that broke it.
      const id = error.glimpse?.items === 1 ? error.glimpse.firstId : undefined;
      if (skip === undefined || id === undefined || id !== skip.id) {
        throw new UnreadableChangeError(cursor, error, id, skip?.id);
      }
      cursor = await skipPast(id, error, cursor, skip, options.now);
      skip = undefined;
      limit = PAGE_SIZE;
      continue;
    }
    if (page.items.length > 0) await options.accept(page);
    cursor = page.cursor;
    if (!page.full) return;
  }
}

/**
 * Moves past the one unreadable change after `cursor`: onto the `latest` of its page of one, which is
 * its change time, checked as every other `latest` is (past the cursor, not past the clock, not
 * before the change was detected). A `latest` that fails is a FeedContractError: nothing moves.
 */
async function skipPast(
  id: string,
  error: UnexpectedResponseError,
  cursor: number,
  skip: NonNullable<DrainOptions['skip']>,
  now: () => number = Date.now,
): Promise<number> {
  const latest = error.glimpse?.latest ?? null;
  const change = { id, detectedAt: error.glimpse?.detectedAt };
  const problem = pageAfterProblem([change], latest, cursor, Math.floor(now() / 1000));
  if (problem || latest === null) throw new FeedContractError(problem ?? 'no latest', error.request, cursor);
  await skip.record({ id, changeTime: latest, reason: error.detail });
  return latest;
}

/** Resolves when the service answers a page that must be empty readably; rejects as it fails. */
async function answersEmptyPage(options: DrainOptions): Promise<void> {
  const nowS = Math.floor((options.now?.() ?? Date.now()) / 1000);
  options.onCall?.();
  await options.api.readChanges(
    { since: nowS + MAX_AHEAD_S, limit: 1, type: options.filters.type, model: options.filters.model },
    options.signal,
  );
}
