/** The service's catalog filter (`GET /api/v1/models`), shared by the sandbox and the public source. */

/** What the filter reads of a catalog model. */
export interface FilterableModel {
  vendor: string;
  pricing: { inputPerMillion: number | null };
  contextLength: number | null;
}

export interface ModelFilter {
  /** Catalog namespace, matched case-insensitively. */
  vendor?: string | undefined;
  /** USD per 1M input tokens; a model without an input price does not pass. */
  maxInputPrice?: number | undefined;
  /** Tokens; a model without a context length does not pass. */
  minContext?: number | undefined;
}

/** The catalog models that pass every given condition, in catalog (attention) order. */
export function filterCatalog<M extends FilterableModel>(catalog: readonly M[], filter: ModelFilter): M[] {
  const vendor = filter.vendor?.toLowerCase();
  const { maxInputPrice, minContext } = filter;
  return catalog.filter((model) => {
    if (vendor !== undefined && model.vendor.toLowerCase() !== vendor) return false;
    const input = model.pricing.inputPerMillion;
    if (maxInputPrice !== undefined && (input === null || input > maxInputPrice)) return false;
    return minContext === undefined || (model.contextLength !== null && model.contextLength >= minContext);
  });
}
