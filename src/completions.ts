/**
 * `completion/complete` for the prompts' arguments and the template's `{id}`: model ids (catalog
 * and Hugging Face), vendors, event types and day counts. Ids and vendors come from the catalog
 * as the API client caches it, so a warm cache answers every keystroke without a request.
 *
 * Whatever cannot be completed gets an empty list, never an error: an unknown prompt (the
 * conformance suite asks about one), an argument with nothing to offer, a catalog that cannot be
 * read right now. A client shows no suggestions; the user types on.
 */

import type { CompleteRequest, CompleteResult, Server } from '@modelcontextprotocol/server';
import type { FeedApi } from './api/client.js';
import { EVENT_TYPES, type Model } from './api/schemas.js';
import { splitIds } from './prompts/compare-models.js';
import { PROMPTS } from './prompts/index.js';
import { vendorOf } from './prompts/models.js';
import type { CompletionKind } from './prompts/prompt.js';
import { MODEL_URI_TEMPLATE } from './resources/model.js';
import type { ServerDeps } from './server-deps.js';
import { closestIds, findModel, normalizeId } from './tools/model-lookup.js';

/** The protocol's cap on values in one answer. */
export const MAX_VALUES = 100;
/** Typo fixes offered after the prefix matches: a few good guesses, not a second list. */
const MAX_CLOSE_MATCHES = 10;
const DAY_CHOICES = ['1', '7', '14', '30', '90'];

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

/** The catalog in attention order (rank 1 first); models without a rank keep the service's order. */
function byAttention(models: readonly Model[]): Model[] {
  const rank = (m: Model): number => m.attention?.rank ?? Number.POSITIVE_INFINITY;
  return models
    .map((model, index) => ({ model, index }))
    .sort((a, b) => rank(a.model) - rank(b.model) || a.index - b.index)
    .map(({ model }) => model);
}

/**
 * Ids for what was typed: catalog and Hugging Face ids that start with it, by attention, then
 * close ids for a typo. Case-insensitive; each id once, in the catalog's own spelling.
 */
export function completeIds(
  models: readonly Model[],
  value: string,
  exclude: readonly string[] = [],
): Completion {
  const typed = normalizeId(value);
  const seen = new Set(exclude.map((id) => id.toLowerCase()));
  const values: string[] = [];
  const add = (id: string | null | undefined): void => {
    if (!id || seen.has(id.toLowerCase())) return;
    seen.add(id.toLowerCase());
    values.push(id);
  };
  for (const model of byAttention(models)) {
    for (const id of [model.id, model.huggingfaceId]) {
      if (id?.toLowerCase().startsWith(typed)) add(id);
    }
  }
  if (typed !== '') for (const id of closestIds(models, typed, MAX_CLOSE_MATCHES)) add(id);
  return capped(values);
}

/** Vendor slugs, most noticed first. */
export function completeVendors(models: readonly Model[], value: string): Completion {
  return byPrefix([...new Set(byAttention(models).map(vendorOf))], value);
}

/**
 * `compare_models`' ids: the last id of the list is completed, and each value is the whole list,
 * since a client puts the chosen value in place of what was typed. Ids already listed are left out.
 */
function completeIdList(models: readonly Model[], value: string): Completion {
  const cut = value.lastIndexOf(',') + 1;
  const head = value.slice(0, cut);
  const excluded: string[] = [];
  for (const id of splitIds(head)) {
    const match = findModel(models, id);
    excluded.push(id, ...(match ? [match.model.id, match.model.huggingfaceId ?? match.model.id] : []));
  }
  const tail = completeIds(models, value.slice(cut), excluded);
  const spacer = head === '' || head.endsWith(' ') ? '' : ' ';
  return { ...tail, values: tail.values.map((id) => `${head}${spacer}${id}`) };
}

async function complete(
  api: FeedApi,
  kind: CompletionKind,
  value: string,
  signal: AbortSignal,
): Promise<Completion> {
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
