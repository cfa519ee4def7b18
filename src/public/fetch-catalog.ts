/**
 * Reads the aggregator's whole public catalog: `GET {origin}/models`, then each `links.next` page.
 * The origin is untrusted: each page is bounded by the HTTP client (bytes, time, retries), the
 * pages by count, and a next link is followed only on the origin and path it came from.
 */

import type { Query } from '../api/http.js';
import { withoutTrailingSlashes } from '../text/key-shapes.js';
import { type CatalogParse, MAX_MODELS, parseOpenRouterCatalog } from './openrouter-catalog.js';

/** Today the catalog comes on one page; twenty pages of a few hundred is far past MAX_MODELS. */
export const MAX_CATALOG_PAGES = 20;

/** The part of the HTTP client this needs: a JSON GET relative to the origin's base URL. */
export interface JsonGetter {
  getJson(path: string, query: Query, signal?: AbortSignal): Promise<{ body: unknown }>;
}

/** Every page's entries joined into one answer, parsed as a snapshot taken at `takenAt`. */
export async function fetchCatalog(
  client: JsonGetter,
  baseUrl: string,
  takenAt: number,
  signal?: AbortSignal,
): Promise<CatalogParse> {
  const entries: unknown[] = [];
  let request: { path: string; query: Query } | undefined = { path: '/models', query: {} };
  for (let page = 0; request !== undefined; page++) {
    if (page === MAX_CATALOG_PAGES) {
      return { ok: false, reason: `the catalog has more than ${MAX_CATALOG_PAGES} pages` };
    }
    const { body } = await client.getJson(request.path, request.query, signal);
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return { ok: false, reason: 'the answer has no "data" list of models' };
    for (const entry of data) if (entries.length <= MAX_MODELS) entries.push(entry);
    const next = nextPage(body, baseUrl);
    if (typeof next === 'string') return { ok: false, reason: next };
    request = next;
  }
  return parseOpenRouterCatalog({ data: entries }, takenAt);
}

/**
 * The request `links.next` names, relative to the base URL; undefined when there is none; why not,
 * for a link to another origin or outside the base URL's path: the catalog does not choose where
 * this machine sends requests.
 */
export function nextPage(
  body: unknown,
  baseUrl: string,
): { path: string; query: Query } | string | undefined {
  const next = (body as { links?: { next?: unknown } } | null)?.links?.next;
  if (typeof next !== 'string' || next.trim() === '') return undefined;
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return "the catalog's links.next is not a URL";
  }
  const basePath = withoutTrailingSlashes(base.pathname);
  if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) {
    return `the catalog's links.next leaves ${base.origin}${basePath}; not followed`;
  }
  return { path: url.pathname.slice(basePath.length), query: Object.fromEntries(url.searchParams) };
}
