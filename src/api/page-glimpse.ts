/**
 * What can still be learned of a page of changes the client refused (a string past the body
 * limits, an item not of the documented shape): its first change's id and the page's `latest`.
 * Asked after a cursor with limit=1, that is the one change that cannot be read and its change
 * time, which `watch` needs to name it and, with `--skip`, to move past exactly it. Read from the
 * value JSON.parse already made: no request more and no byte more. A body past the byte cap, or not
 * JSON, gives nothing, and the change stays unnamed.
 */

export interface PageGlimpse {
  /** The first item's id; undefined when it is not a plain change id (isPlainChangeId). */
  firstId: string | undefined;
  /** The first item's `detectedAt`, when a short string: a skip's `latest` is checked against it. */
  detectedAt: string | undefined;
  /** The page's `latest`; null when it is not a whole number. */
  latest: number | null;
  /** How many items the page held: only a page of one names the change that broke it. */
  items: number;
}

/**
 * Ids the runner repeats on a command line (`--skip <id>`) and in the log: letters, digits and
 * `._:-`, as the service's uuids are. Anything else could not be pasted safely, so goes unnamed.
 */
const PLAIN_CHANGE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isPlainChangeId(id: string): boolean {
  return PLAIN_CHANGE_ID.test(id);
}

/** Longest `detectedAt` taken: an ISO time is 20-odd characters; the field may be the huge one. */
const MAX_TIME_LENGTH = 40;

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The glimpse of a parsed body, or undefined when it is not a page with items. `secrets`: an id
 * holding one (a service echoing the key) is not passed on, as no message may show it.
 */
export function glimpsePage(body: unknown, secrets: readonly string[]): PageGlimpse | undefined {
  const page = record(body);
  const items = page?.items;
  if (!page || !Array.isArray(items) || items.length === 0) return undefined;
  const first = record(items[0]);
  const id = first?.id;
  const detectedAt = first?.detectedAt;
  return {
    firstId:
      typeof id === 'string' && isPlainChangeId(id) && !secrets.some((secret) => id.includes(secret))
        ? id
        : undefined,
    detectedAt:
      typeof detectedAt === 'string' && detectedAt.length <= MAX_TIME_LENGTH ? detectedAt : undefined,
    latest: Number.isSafeInteger(page.latest) ? (page.latest as number) : null,
    items: items.length,
  };
}
