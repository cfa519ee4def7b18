/**
 * The template `model-feed://models/{id}`: one model with its price history, exactly what
 * `get_model` returns as its structured result (the same code answers both). `{id}` is a catalog
 * or Hugging Face id with its slash percent-encoded, as RFC 6570 expands `{id}`; an id written
 * with a bare slash is read as well, since people type URIs by hand.
 */

import type { ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/server';
import type { FeedApi, ReadNotes } from '../api/client.js';
import { inline } from '../text/change-line.js';
import { getModel } from '../tools/get-model.js';
import { ResourceNotFound } from './not-found.js';

export const MODEL_URI_TEMPLATE = 'model-feed://models/{id}';
const MODEL_URI_PREFIX = 'model-feed://models/';
/** get_model's own bound on an id. */
const MAX_ID_LENGTH = 200;

export const modelTemplate: ResourceTemplate = {
  uriTemplate: MODEL_URI_TEMPLATE,
  name: 'model',
  title: 'Model',
  description: 'One model with its price history, as get_model returns it. id: catalog or Hugging Face id.',
  mimeType: 'application/json',
};

/** The URI of one model's resource. */
export function modelUri(id: string): string {
  return `${MODEL_URI_PREFIX}${encodeURIComponent(id)}`;
}

/** The id a URI names; undefined when the URI is not of this template. */
export function modelIdFromUri(uri: string): string | undefined {
  if (!uri.startsWith(MODEL_URI_PREFIX)) return undefined;
  const encoded = uri.slice(MODEL_URI_PREFIX.length);
  try {
    return decodeURIComponent(encoded).trim();
  } catch {
    // A stray "%" that starts no escape: read it as written rather than refuse the id.
    return encoded.trim();
  }
}

/** get_model's structured result for a model that is listed. */
export type ModelRecord = Record<string, unknown>;

/** "Close ids: a, b." or a pointer to the catalog when none is close. */
export function closeIdsHint(suggestions: readonly string[]): string {
  return suggestions.length
    ? `Close ids: ${suggestions.map(inline).join(', ')}.`
    : 'No close ids; search_models lists the catalog.';
}

/**
 * One model, as `get_model` finds it (catalog read, then its price history, both through the same
 * cache). An id in no catalog is a resource-not-found error naming the close ids get_model found
 * in the catalog it read: reading it again would cost a second request with the cache off.
 */
export async function readModel(
  api: FeedApi,
  uri: string,
  id: string,
  signal: AbortSignal,
  notes?: ReadNotes,
): Promise<ModelRecord> {
  if (id === '' || id.length > MAX_ID_LENGTH) {
    throw new ResourceNotFound(
      uri,
      `Resource not found: ${inline(uri)}. The id must be 1 to ${MAX_ID_LENGTH} characters, e.g. ${modelUri('openai/gpt-4o')}.`,
    );
  }
  const outcome = await getModel.run({ id }, { api, signal, ...(notes && { notes }) });
  const { catalogStatus, suggestions } = outcome.structured;
  if (catalogStatus === 'listed') return outcome.structured;
  throw new ResourceNotFound(
    uri,
    // not_listed always carries them (GetModelOutput.suggestions), closest first.
    `Resource not found: "${inline(id)}" is not in the catalog. ${closeIdsHint(Array.isArray(suggestions) ? suggestions : [])}`,
  );
}
