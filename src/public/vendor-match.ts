/**
 * How the origins' names for one vendor and one model meet the aggregator's catalog ids. Each
 * origin spells them its own way: the catalog says `z-ai/glm-4.5` and `anthropic/claude-haiku-4.5`,
 * the open model repository's organisation is `zai-org`, the vendor's own id is
 * `claude-haiku-4-5`, and the deprecation list files Qwen under `alibaba`. The rules here are the
 * only place those spellings are compared.
 */

/** Lower case, letters and digits only: `Z-AI`, `z_ai` and `zai` are one vendor name. */
export function vendorKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Vendor names that share no prefix with the catalog's namespace for the same vendor, as the
 * origins spell them (models.dev providers, the deprecation list's providers).
 */
const NAMESPACES_BY_OTHER_NAME: Readonly<Record<string, readonly string[]>> = {
  alibaba: ['qwen'],
  bedrock: ['amazon'],
  llama: ['meta-llama', 'meta'],
};

/** The shortest vendor key a prefix may match: shorter ones (`ai`) would match anything. */
const MIN_PREFIX_KEY = 3;

/**
 * Whether two spellings name the same vendor: equal keys, or one key starting the other
 * (`deepseek` / `deepseek-ai`, `z-ai` / `zai-org`, `mistral` / `mistralai`, `cohere` / `CohereLabs`).
 * Measured on the catalog of 2026-08-22: every one of its 168 open-repository links sits under an
 * organisation that passes this test with the namespace of the model that links it.
 */
export function sameVendor(a: string, b: string): boolean {
  const keyA = vendorKey(a);
  const keyB = vendorKey(b);
  if (keyA === keyB) return keyA !== '';
  const [shorter, longer] = keyA.length < keyB.length ? [keyA, keyB] : [keyB, keyA];
  return shorter.length >= MIN_PREFIX_KEY && longer.startsWith(shorter);
}

/** Whether an origin's vendor name (a provider, an organisation) stands for a catalog namespace. */
export function namesNamespace(otherName: string, namespace: string): boolean {
  const known = NAMESPACES_BY_OTHER_NAME[otherName.toLowerCase()];
  if (known?.includes(namespace.toLowerCase())) return true;
  return sameVendor(otherName, namespace);
}

/**
 * A model id or name reduced to what the origins agree on: lower case, with `.`, `_`, `:`, `/`
 * and spaces as `-` (`claude-haiku-4.5` and `claude-haiku-4-5` are one id), and `+` as `plus`
 * (`Command R+` is not `Command R`). No date or suffix is removed: `gpt-4o-2024-05-13` is not
 * `gpt-4o`.
 */
export function modelKey(id: string): string {
  return id
    .toLowerCase()
    .replaceAll('+', '-plus')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

/** A catalog name without its `Vendor: ` prefix (`Anthropic: Claude Haiku 4.5`), as a key. */
export function nameKey(name: string): string {
  const colon = name.indexOf(': ');
  return modelKey(colon >= 0 ? name.slice(colon + 2) : name);
}
