/**
 * How the aggregator's ids relate to the model they sell. A model is listed once under its base id
 * and again under variants (`openai/gpt-oss-20b:free`, `…:batch`, `…:thinking`) that share its
 * `canonical_slug`, and moving aliases (`~anthropic/claude-opus-latest`) point at whatever the
 * vendor's newest model is today. The feed is about models, so it keys births and removals by the
 * base id; a variant or alias is never a new model.
 */

/** The `:suffix` that marks a variant; the rest of the id is its base. */
const VARIANT_SUFFIX = /:[a-z0-9][a-z0-9._-]*$/i;

/** The base id a listed id stands for. An alias resolves to its target when the catalog names one. */
export function baseIdOf(id: string, aliasTarget?: string | null): string {
  if (isAlias(id)) return aliasTarget ?? id.slice(1).replace(VARIANT_SUFFIX, '');
  return id.replace(VARIANT_SUFFIX, '');
}

/** An alias (`~vendor/…-latest`) follows another model, so its own values are that model's. */
export function isAlias(id: string): boolean {
  return id.startsWith('~');
}

/** The vendor namespace of a catalog id (`openai/gpt-5` → `openai`): the service's `model.slug`. */
export function vendorOf(id: string): string {
  const bare = isAlias(id) ? id.slice(1) : id;
  const slash = bare.indexOf('/');
  return slash > 0 ? bare.slice(0, slash) : bare;
}
