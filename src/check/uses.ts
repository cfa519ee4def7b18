/**
 * `watch --uses <path>`: which changes concern the code under those paths. The models the code
 * names are found as `check` finds them (the walker and the matcher, against the catalog); a change
 * concerns them by the feed's one rule (feed/concerns.ts), as plan_migration and check decide it.
 */

import type { FeedApi } from '../api/client.js';
import type { ChangeEvent } from '../api/schemas.js';
import { concernedModel, coversVariant, indexModels } from '../feed/concerns.js';
import { compileMatcher } from './matcher.js';
import { DEFAULT_MAX_FILE_SIZE_MIB } from './options.js';
import { scanPaths } from './scan.js';

export interface CodeModels {
  /** Whether a change concerns a model the code names. */
  concerns(event: ChangeEvent): boolean;
  /** The catalog ids the code names, sorted. */
  models: string[];
  /** Files read. */
  scanned: number;
}

/** The models named under `paths`, read once, at start: the catalog (one cached read) and the tree. */
export async function modelsUsedUnder(
  api: FeedApi,
  paths: readonly string[],
  signal: AbortSignal,
): Promise<CodeModels> {
  const catalog = (await api.listModels({}, signal)).items;
  const scan = await scanPaths(paths, compileMatcher(catalog), {
    maxFileSize: DEFAULT_MAX_FILE_SIZE_MIB * 1024 * 1024,
  });
  // Each model with the variants the code names (null: the model itself), for the one rule; those
  // past the run's cap on listed references too, counted by model, not dropped.
  const named = new Map<string, Set<string | null>>();
  for (const r of scan.references) {
    if (!r.modelId) continue;
    const variants = named.get(r.modelId) ?? new Set();
    variants.add(r.variant ?? null);
    named.set(r.modelId, variants);
  }
  for (const id of scan.notListed.models.keys()) named.set(id, (named.get(id) ?? new Set()).add(null));
  const index = indexModels(catalog);
  return {
    concerns: (event) => {
      const concerned = concernedModel(event, index);
      const variants = concerned && named.get(concerned.modelId);
      return !!variants && [...variants].some((variant) => coversVariant(concerned, variant));
    },
    models: [...named.keys()].sort(),
    scanned: scan.counts.scanned,
  };
}
