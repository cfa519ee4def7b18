/**
 * `completion/complete` for the prompts' arguments and the template's `{id}`: model ids (catalog
 * and Hugging Face), vendors, event types and day counts. Ids and vendors come from the catalog
 * as the API client caches it, so a warm cache answers every keystroke without a request.
 *
 * Whatever cannot be completed gets an empty list, never an error: an unknown prompt (the
 * conformance suite asks about one), an argument with nothing to offer, a value longer than the
 * prompt accepts, a catalog that cannot be read right now. A client shows no suggestions; the user
 * types on.
 *
 * Bounded work per keystroke, whatever a client sends: the value is refused past the length (and
 * for compare_models the number of ids) its prompt accepts, before anything is compared; the
 * catalog's ids are ordered and lower-cased once per catalog snapshot; the close-id search has its
 * own budget (tools/model-lookup.ts) and runs after a yield, so other requests and signals get in.
 */

import type { CompleteRequest, CompleteResult, Server } from '@modelcontextprotocol/server';
import type { FeedApi } from './api/client.js';
import { EVENT_TYPES, type Model } from './api/schemas.js';
import { yieldToEventLoop } from './api/yield.js';
import type { ServerDeps } from './mcp-server-deps.js';
import { MAX_IDS, MAX_IDS_LENGTH, splitIds } from './prompts/compare-models.js';
import { PROMPTS } from './prompts/index.js';
import { vendorOf } from './prompts/models.js';
import type { CompletionKind } from './prompts/prompt.js';
import { MODEL_URI_TEMPLATE } from './resources/model.js';
import { closestIds, findModel, normalizeId } from './tools/model-lookup.js';

/** The protocol's cap on values in one answer. */
export const MAX_VALUES = 100;
/** Typo fixes offered after the prefix matches: a few good guesses, not a second list. */
const MAX_CLOSE_MATCHES = 10;
/**
 * Levenshtein cells one keystroke's typo search may compute: a quarter of a tool's budget
 * (tools/model-lookup.ts), 3 to 5 ms here, and up to 40 ms with the machine's cores busy. The next
 * keystroke asks again; a catalog of real ids needs a small fraction of it.
 */
const CLOSE_MATCH_BUDGET = 250_000;
const DAY_CHOICES = ['1', '7', '14', '30', '90'];
/**
 * The longest value completed, compare_models' list aside: no id, vendor or choice that a tool, a
 * prompt or the model template accepts is longer, so a longer value has nothing to complete.
 */
const MAX_VALUE_LENGTH = 200;

export type Completion = CompleteResult['completion'];

const EMPTY: Completion = { values: [] };

function capped(values: readonly string[]): Completion {
  return {
    values: values.slice(0, MAX_VALUES),
    total: values.length,
    hasMore: values.length > MAX_VALUES,
  };
}

function byPrefix(choices: readonly string[], value: string): Completion {
  const prefix = value.trim().toLowerCase();
  return capped(choices.filter((choice) => choice.toLowerCase().startsWith(prefix)));
}

/** One id of the catalog, in its own spelling and lower-cased for matching. */
interface KnownId {
  id: string;
  lower: string;
}

/** A catalog snapshot made ready for completing: what every keystroke would otherwise redo. */
interface Ordered {
  /** Catalog and Hugging Face ids, by attention (rank 1 first; unranked in the service's order). */
  ids: readonly KnownId[];
  /** Vendor slugs, most noticed first. */
  vendors: readonly string[];
}

/**
 * Keyed by the items array, as tools/model-lookup.ts keys its own preparation: the API client hands
 * out the same array for the cache's TTL, so a catalog is sorted once, not once per keystroke.
 */
const orderedCatalogs = new WeakMap<readonly Model[], Ordered>();

function ordered(models: readonly Model[]): Ordered {
  const known = orderedCatalogs.get(models);
  if (known) return known;
  const rank = (m: Model): number => m.attention?.rank ?? Number.POSITIVE_INFINITY;
  const byAttention = models
    .map((model, index) => ({ model, index }))
    .sort((a, b) => rank(a.model) - rank(b.model) || a.index - b.index)
    .map(({ model }) => model);
  const ids: KnownId[] = [];
  for (const model of byAttention) {
    for (const id of [model.id, model.huggingfaceId]) if (id) ids.push({ id, lower: id.toLowerCase() });
  }
  const result = { ids, vendors: [...new Set(byAttention.map(vendorOf))] };
  orderedCatalogs.set(models, result);
  return result;
}

/**
 * Ids for what was typed: catalog and Hugging Face ids that start with it, by attention, then
 * close ids for a typo. Case-insensitive; each id once, in the catalog's own spelling.
 */
export async function completeIds(
  models: readonly Model[],
  value: string,
  exclude: readonly string[] = [],
): Promise<Completion> {
  const typed = normalizeId(value);
  const seen = new Set(exclude.map((id) => id.toLowerCase()));
  const values: string[] = [];
  const add = (id: string, lower = id.toLowerCase()): void => {
    if (seen.has(lower)) return;
    seen.add(lower);
    values.push(id);
  };
  for (const { id, lower } of ordered(models).ids) if (lower.startsWith(typed)) add(id, lower);
  if (typed !== '') {
    // The costliest step: whatever request or signal waits goes first.
    await yieldToEventLoop();
    for (const id of closestIds(models, typed, MAX_CLOSE_MATCHES, { cells: 0 }, CLOSE_MATCH_BUDGET)) add(id);
  }
  return capped(values);
}

/** Vendor slugs, most noticed first. */
function completeVendors(models: readonly Model[], value: string): Completion {
  return byPrefix(ordered(models).vendors, value);
}

/**
 * `compare_models`' ids: the last id of the list is completed, and each value is the whole list,
 * since a client puts the chosen value in place of what was typed. Ids already listed are left out;
 * a list that already holds as many ids as the prompt takes is offered nothing more.
 */
async function completeIdList(models: readonly Model[], value: string): Promise<Completion> {
  const cut = value.lastIndexOf(',') + 1;
  const head = value.slice(0, cut);
  const listed = splitIds(head);
  if (listed.length >= MAX_IDS) return EMPTY;
  const excluded: string[] = [];
  for (const id of listed) {
    const match = findModel(models, id);
    excluded.push(id, ...(match ? [match.model.id, match.model.huggingfaceId ?? match.model.id] : []));
  }
  const tail = await completeIds(models, value.slice(cut), excluded);
  const spacer = head === '' || head.endsWith(' ') ? '' : ' ';
  return { ...tail, values: tail.values.map((id) => `${head}${spacer}${id}`) };
}

async function complete(
  api: FeedApi,
  kind: CompletionKind,
  value: string,
  signal: AbortSignal,
): Promise<Completion> {
  if (value.length > (kind === 'ids' ? MAX_IDS_LENGTH : MAX_VALUE_LENGTH)) return EMPTY;
  if (kind === 'eventType') return byPrefix(EVENT_TYPES, value);
  if (kind === 'days') return byPrefix(DAY_CHOICES, value);
  // The same read as search_models without filters: cached for the TTL, coalesced in flight.
  const catalog = (await api.listModels({}, signal)).items;
  if (kind === 'vendor') return completeVendors(catalog, value);
  if (kind === 'ids') return completeIdList(catalog, value);
  return completeIds(catalog, value);
}

/** What the reference and argument ask to complete; undefined when nothing here completes it. */
function kindOf(params: CompleteRequest['params']): CompletionKind | undefined {
  const { ref, argument } = params;
  if (ref.type === 'ref/resource') {
    return ref.uri === MODEL_URI_TEMPLATE && argument.name === 'id' ? 'id' : undefined;
  }
  const prompt = PROMPTS.find((p) => p.name === ref.name);
  return prompt?.arguments.find((a) => a.name === argument.name)?.completes;
}

export function registerCompletions(server: Server, deps: ServerDeps): void {
  server.registerCapabilities({ completions: {} });
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const kind = kindOf(request.params);
    if (!kind) return { completion: EMPTY };
    try {
      return { completion: await complete(deps.api, kind, request.params.argument.value, ctx.mcpReq.signal) };
    } catch (error) {
      if (ctx.mcpReq.signal.aborted) throw error;
      // No key, an outage, a 429: no suggestions now; the prompt itself will say what is wrong.
      deps.log.debug('completion without the catalog', {
        error: error instanceof Error ? error.message : String(error),
      });
      return { completion: EMPTY };
    }
  });
}
