/**
 * Which catalog model a change event is about. Events name their model by vendor slug and a name,
 * which is the catalog model's `name` ("quill-mini-2") as often as its `displayName` ("Quill Mini
 * 2"); only some carry an id, in their text. Pure: the event and the catalog in, a catalog id out.
 * Used by plan_migration to pick a model's notices, and meant for `check` to tie changes to the
 * models a codebase uses.
 *
 * The rule:
 * 1. The event's `model.name` equals a model's `name` or `displayName`, case-insensitively (and
 *    with runs of spaces counted as one). When several models share it, the one in the event's
 *    vendor namespace wins, then the first in catalog order.
 * 2. Only when that name matches no catalog model: the first catalog or Hugging Face id in its
 *    title, then summary, then before and after values. A notice names its replacement too, and
 *    later in the text ("X retires a/b; move to a/c"), so the first id is the one it is about.
 *    An id counts whole: "a/b" is not found in "a/b-preview", but is in "a/b:free" (a variant),
 *    "hf:a/b" and "https://huggingface.co/a/b".
 * 3. A variant the catalog does not list as a model of its own (`:free`, `:beta`, a provider's
 *    suffix) is that variant's business, not its base model's: when the title names the variant,
 *    as an id (`a/b:free`) or in words ("B free variant retired"), the event concerns the variant
 *    only. Feeds name a variant in the title alone often enough (the name field holds the base
 *    model's), and a variant's retirement is no reason to move off the model.
 *    `concernsModel` is the one test of this: check, plan_migration and `watch --uses` all ask it.
 */

import type { ChangeEvent, Model } from '../api/schemas.js';

/** The catalog, indexed for the rule: build it once per catalog, ask it per event. */
export interface ModelIndex {
  /** Lower-cased `name` and `displayName` → catalog ids, in catalog order. */
  readonly byName: ReadonlyMap<string, readonly string[]>;
  /** Lower-cased catalog and Hugging Face ids → catalog id. */
  readonly byId: ReadonlyMap<string, string>;
}

/**
 * How much of an event's text is searched for ids: real titles and summaries are a few hundred
 * characters; a huge value costs no more than this.
 */
const MAX_SCANNED_CHARS = 16 * 1024;

/**
 * Runs of characters ids and URLs are made of; each is cut at `/` into segments, and every two
 * neighbouring segments are a candidate id. So the id inside a URL is found as well as a bare one.
 * One character class, no nesting: linear in the text, whatever it holds.
 */
const PATH_RUN = /[\w.:~%+@/-]+/g;

const nameKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();

/** The namespace of a catalog id ("quillon" for "quillon/quill-3"), lower-cased. */
const namespaceOf = (id: string): string => id.slice(0, Math.max(0, id.indexOf('/'))).toLowerCase();

export function indexModels(models: readonly Model[]): ModelIndex {
  const byName = new Map<string, string[]>();
  const byId = new Map<string, string>();
  for (const model of models) {
    const names = [model.name, model.displayName].flatMap((name) => (name ? [nameKey(name)] : []));
    for (const name of new Set(names)) {
      const ids = byName.get(name);
      if (ids) ids.push(model.id);
      else byName.set(name, [model.id]);
    }
    // A catalog id wins over another model's equal Hugging Face id: set those first, never overwrite.
    if (!byId.has(model.id.toLowerCase())) byId.set(model.id.toLowerCase(), model.id);
  }
  for (const model of models) {
    const hf = model.huggingfaceId?.toLowerCase();
    if (hf && !byId.has(hf)) byId.set(hf, model.id);
  }
  return { byName, byId };
}

/** The catalog id a candidate "owner/name" pair stands for, if any. */
function lookUp(index: ModelIndex, owner: string, name: string): string | undefined {
  // "hf:Owner" and "https:" carry a scheme; a sentence may end right after the id.
  const bareOwner = owner.slice(owner.lastIndexOf(':') + 1);
  const bareName = name.replace(/[.:]+$/, '');
  if (!bareOwner || !bareName) return undefined;
  const exact = index.byId.get(`${bareOwner}/${bareName}`.toLowerCase());
  if (exact) return exact;
  // "a/b:free" is a variant of a/b when the catalog does not list it as a model of its own.
  const colon = bareName.indexOf(':');
  return colon > 0 ? index.byId.get(`${bareOwner}/${bareName.slice(0, colon)}`.toLowerCase()) : undefined;
}

/** The first catalog or Hugging Face id in `text`, as a catalog id. */
function firstId(index: ModelIndex, text: string): string | undefined {
  for (const run of text.matchAll(PATH_RUN)) {
    if (!run[0].includes('/')) continue;
    const segments = run[0].split('/');
    for (let i = 0; i + 1 < segments.length; i += 1) {
      const found = lookUp(index, segments[i]!, segments[i + 1]!);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The catalog id of the model `event` is recorded under, by rules 1 and 2 above (for a variant, its
 * base model's); undefined when it names none the catalog holds.
 */
export function concernedModelId(event: ChangeEvent, index: ModelIndex): string | undefined {
  const named = event.model.name ? index.byName.get(nameKey(event.model.name)) : undefined;
  if (named) {
    const vendor = event.model.slug.toLowerCase();
    return named.find((id) => namespaceOf(id) === vendor) ?? named[0];
  }
  let budget = MAX_SCANNED_CHARS;
  for (const field of [event.title, event.summary, event.beforeValue, event.afterValue]) {
    if (!field || budget <= 0) continue;
    const text = field.slice(0, budget);
    budget -= text.length;
    const found = firstId(index, text);
    if (found) return found;
  }
  return undefined;
}

/** The catalog model an event is about, and which variant of it when only a variant is (rule 3). */
export interface ConcernedModel {
  modelId: string;
  /** Lower-cased, without its colon (`free`); null when the event is about the model itself. */
  variant: string | null;
}

/** A variant named in words: "Qwen3 Coder free variant retired". */
const VARIANT_IN_WORDS = /\b([a-z0-9][\w.-]*)\s+variant\b/i;
/** Words before "variant" that name none: "a new variant", "the variant". */
const NOT_A_VARIANT = new Set(['a', 'an', 'the', 'new', 'this', 'that', 'its', 'one', 'each', 'every']);
/** A variant's suffix, as ids carry it after their colon. */
const VARIANT_SUFFIX = /^[a-z0-9][\w.-]*/i;

/** The variant of `modelId` that `title` says the event is about, if any (rule 3). */
function variantIn(title: string, modelId: string): string | null {
  // A variant the catalog lists is a model of its own: rules 1 and 2 found it by its id.
  if (modelId.includes(':')) return null;
  const text = title.slice(0, MAX_SCANNED_CHARS);
  const lower = text.toLowerCase();
  const named = `${modelId.toLowerCase()}:`;
  for (let at = lower.indexOf(named); at !== -1; at = lower.indexOf(named, at + 1)) {
    const before = at > 0 ? lower[at - 1]! : ' ';
    if (/[\w.-]/.test(before)) continue;
    const suffix = VARIANT_SUFFIX.exec(text.slice(at + named.length))?.[0].replace(/\.+$/, '');
    if (suffix) return suffix.toLowerCase();
  }
  const word = VARIANT_IN_WORDS.exec(text)?.[1]?.toLowerCase();
  return word && !NOT_A_VARIANT.has(word) ? word : null;
}

/** The model `event` is about, and its variant (rules 1 to 3); undefined when it names none. */
export function concernedModel(event: ChangeEvent, index: ModelIndex): ConcernedModel | undefined {
  const modelId = concernedModelId(event, index);
  if (modelId === undefined) return undefined;
  return { modelId, variant: event.title ? variantIn(event.title, modelId) : null };
}

/**
 * Whether `event` concerns a model, or one variant of it (`variant`, lower-cased, without its
 * colon): an event about the model concerns all its variants too; one about a variant concerns that
 * variant only.
 */
export function concernsModel(
  event: ChangeEvent,
  index: ModelIndex,
  modelId: string,
  variant: string | null = null,
): boolean {
  const concerned = concernedModel(event, index);
  return concerned !== undefined && concerned.modelId === modelId && coversVariant(concerned, variant);
}

/** Whether what an event concerns covers a variant of its model (null: the model itself). */
export const coversVariant = (concerned: ConcernedModel, variant: string | null): boolean =>
  concerned.variant === null || concerned.variant === variant;
