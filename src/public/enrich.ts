/**
 * What the tools' Model takes from the origins beside the aggregator's catalog, per listed catalog
 * id. Each value comes from a named origin or is null; none is guessed:
 * - `type`: `open_source` when the catalog links an open-repository id or models.dev says the
 *   weights are open; `commercial` when models.dev says they are not and no repository is linked;
 *   null when neither says;
 * - `releaseDate`: models.dev's (`YYYY-MM-DD` or `YYYY-MM`);
 * - `popularity`: the linked repository's downloads (last 30 days) and likes, when this run's
 *   listings held it.
 */

import type { HuggingFaceListings } from './huggingface.js';
import { type ModelsDevIndex, modelsDevFacts } from './models-dev.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';

export type ModelType = 'open_source' | 'commercial';

export interface Popularity {
  readonly downloads: number | null;
  readonly likes: number | null;
}

export interface OriginFacts {
  readonly type: ModelType | null;
  readonly releaseDate: string | null;
  readonly popularity: Popularity | null;
}

export interface FactInputs {
  readonly modelsDev?: ModelsDevIndex | undefined;
  readonly huggingFace?: HuggingFaceListings | undefined;
}

/** The facts for every listed catalog id (aliases included: they are listings too). */
export function catalogFacts(catalog: CatalogSnapshot, inputs: FactInputs): ReadonlyMap<string, OriginFacts> {
  const devFacts = inputs.modelsDev === undefined ? undefined : modelsDevFacts(inputs.modelsDev, catalog);
  const facts = new Map<string, OriginFacts>();
  for (const model of catalog.models.values()) {
    // An alias stands for its target today, so it takes the target's facts.
    const dev = devFacts?.get(model.id) ?? devFacts?.get(model.baseId);
    const repo =
      model.huggingFaceId === null
        ? undefined
        : inputs.huggingFace?.repos.get(model.huggingFaceId.toLowerCase());
    const openWeights = model.huggingFaceId !== null ? true : (dev?.openWeights ?? null);
    facts.set(model.id, {
      type: openWeights === null ? null : openWeights ? 'open_source' : 'commercial',
      releaseDate: dev?.releaseDate ?? null,
      popularity: repo === undefined ? null : { downloads: repo.downloads, likes: repo.likes },
    });
  }
  return facts;
}
