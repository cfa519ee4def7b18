/** Finding the models a prompt names, with the same close-id suggestions as get_model. */

import type { FeedApi } from '../api/client.js';
import type { Model } from '../api/schemas.js';
import { InvalidArgumentsError } from '../errors.js';
import { closeIdsHint } from '../resources/model.js';
import { inline } from '../text/change-line.js';
import { getModel } from '../tools/get-model.js';
import { closestIds, findModel } from '../tools/model-lookup.js';

/**
 * The catalog models that `ids` name, in order, each once. Every unknown id is reported with its
 * close ids in one message, before any price history is read.
 */
export function resolveModels(
  catalog: readonly Model[],
  ids: readonly string[],
  prompt: string,
  argument: string,
): Model[] {
  const found: Model[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const match = findModel(catalog, id);
    if (!match)
      unknown.push(`"${inline(id)}" is not in the catalog. ${closeIdsHint(closestIds(catalog, id))}`);
    else if (!found.includes(match.model)) found.push(match.model);
  }
  if (unknown.length) {
    throw new InvalidArgumentsError(`Invalid arguments for ${prompt}: "${argument}": ${unknown.join(' ')}`);
  }
  return found;
}

/** get_model's structured result for a listed model: the same reads, through the same cache. */
export async function modelRecord(
  api: FeedApi,
  model: Model,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  return (await getModel.run({ id: model.id }, { api, signal })).structured;
}

/**
 * A model's vendor slug, as the feed's `model` filter takes it: the namespace of its catalog id.
 * The model's `vendor` may be the company's name ("Quillon" for "quillon/…"), which a service that
 * matches the slug exactly answers with nothing; it stands in only for an id without a namespace.
 */
export function vendorOf(model: Model): string {
  return model.id.slice(0, Math.max(0, model.id.indexOf('/'))) || model.vendor || model.id;
}
