import type { Model } from './types.js';

export interface ModelFilter {
  /** Catalog namespace, matched case-insensitively. */
  vendor?: string | undefined;
  /** USD per 1M input tokens; a model without an input price does not pass. */
  maxInputPrice?: number | undefined;
  /** Tokens; a model without a context length does not pass. */
  minContext?: number | undefined;
}

/** The catalog models that pass every given condition, in catalog (attention) order. */
export function filterCatalog(catalog: readonly Model[], filter: ModelFilter): Model[] {
  const vendor = filter.vendor?.toLowerCase();
  const { maxInputPrice, minContext } = filter;
  return catalog.filter((model) => {
    if (vendor !== undefined && model.vendor.toLowerCase() !== vendor) return false;
    const input = model.pricing.inputPerMillion;
    if (maxInputPrice !== undefined && (input === null || input > maxInputPrice)) return false;
    return minContext === undefined || (model.contextLength !== null && model.contextLength >= minContext);
  });
}
