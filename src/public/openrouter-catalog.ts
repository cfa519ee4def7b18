/**
 * One answer of the aggregator's public catalog (`GET /api/v1/models`) as a normalised snapshot:
 * only the values the feed and the catalog tools use, in the service's units. The origin is
 * untrusted and changes shape without notice, so the parse is lenient (unknown fields pass, a
 * field that does not fit becomes null) and bounded (count, id and text lengths); a model without
 * a usable id is skipped and counted rather than failing the whole answer.
 */

import * as z from 'zod';
import { once } from '../once.js';
import { lenientText } from './lenient-text.js';
import { baseIdOf, isAlias } from './model-id.js';
import { perMillion } from './price.js';

/** Far above the ~420 models the catalog lists today, low enough to bound memory and diff time. */
export const MAX_MODELS = 5_000;
/** Real ids are under 100 characters; a longer one is not an id we could show or store. */
export const MAX_ID_LENGTH = 200;
const MAX_TEXT_LENGTH = 300;
const MAX_MODALITIES = 20;
/** The last second of year 9999: a later `created` cannot be written as a date-time. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** The catalog's stand-in for "no date set": a date that far out is not an announced removal. */
const PLACEHOLDER_EXPIRATION = '2098-12-31';

export interface CatalogModel {
  /** The id as listed, variant suffix and alias mark included. */
  readonly id: string;
  /** The model it stands for: variants and aliases map to their base. */
  readonly baseId: string;
  /** An alias points at another model and moves when the vendor's newest model changes. */
  readonly alias: boolean;
  readonly name: string | null;
  /** USD per 1M tokens; null when the catalog gives no fixed price. */
  readonly inputPerMillion: number | null;
  readonly outputPerMillion: number | null;
  /** The model's own context length, not a provider's. */
  readonly contextLength: number | null;
  /** Sorted and without repeats, so a reordering is not a change. */
  readonly inputModalities: readonly string[];
  readonly outputModalities: readonly string[];
  /** Unix seconds of registration in the catalog. */
  readonly created: number | null;
  /** YYYY-MM-DD after which the model may be removed; null when none (or the placeholder). */
  readonly expirationDate: string | null;
  readonly huggingFaceId: string | null;
}

export interface CatalogSnapshot {
  /** Unix seconds at which the answer was fetched. */
  readonly takenAt: number;
  readonly models: ReadonlyMap<string, CatalogModel>;
  /** Entries left out: no usable id, a repeated id, or beyond MAX_MODELS. */
  readonly skipped: number;
}

export type CatalogParse =
  | { readonly ok: true; readonly snapshot: CatalogSnapshot }
  | { readonly ok: false; readonly reason: string };

/**
 * Real ids are printable ASCII without spaces (`vendor/model:variant`, `~vendor/alias`): an id with
 * anything else could not be shown, typed or put in a URL as it is, so it is not one.
 */
const CATALOG_ID = /^[\x21-\x7e]+$/;
/** Built on the first parse: a process that answers from its record never needs them. */
const schemas = once(() => {
  const boundedText = lenientText(MAX_TEXT_LENGTH);

  const modalities = z
    .array(z.string().max(MAX_TEXT_LENGTH))
    .max(MAX_MODALITIES)
    .transform((list) => [...new Set(list)].sort())
    .nullish()
    .catch(null);

  const catalogId = z.string().trim().min(1).max(MAX_ID_LENGTH).regex(CATALOG_ID);

  const EntrySchema = z.looseObject({
    id: catalogId,
    name: boundedText,
    created: z.number().int().nonnegative().max(MAX_UNIX_SECONDS).nullish().catch(null),
    context_length: z.number().int().positive().nullish().catch(null),
    pricing: z.looseObject({ prompt: z.unknown(), completion: z.unknown() }).nullish().catch(null),
    architecture: z
      .looseObject({ input_modalities: modalities, output_modalities: modalities })
      .nullish()
      .catch(null),
    expiration_date: boundedText,
    hugging_face_id: boundedText,
    alias_target: z.looseObject({ slug: catalogId }).nullish().catch(null),
  });

  const EnvelopeSchema = z.looseObject({ data: z.array(z.unknown()) });

  return { EntrySchema, EnvelopeSchema };
});

type Entry = z.infer<ReturnType<typeof schemas>['EntrySchema']>;

/** Normalises a parsed `/models` answer fetched at `takenAt` (unix seconds). */
export function parseOpenRouterCatalog(body: unknown, takenAt: number): CatalogParse {
  const { EntrySchema, EnvelopeSchema } = schemas();
  const envelope = EnvelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, reason: 'the answer has no "data" list of models' };
  const models = new Map<string, CatalogModel>();
  let skipped = 0;
  for (const raw of envelope.data.data) {
    const entry = models.size < MAX_MODELS ? EntrySchema.safeParse(raw) : undefined;
    if (entry?.success !== true || models.has(entry.data.id)) {
      skipped += 1;
      continue;
    }
    models.set(entry.data.id, normalise(entry.data));
  }
  return { ok: true, snapshot: { takenAt, models, skipped } };
}

function normalise(entry: Entry): CatalogModel {
  return {
    id: entry.id,
    baseId: baseIdOf(entry.id, entry.alias_target?.slug),
    alias: isAlias(entry.id),
    name: entry.name || null,
    inputPerMillion: perMillion(entry.pricing?.prompt),
    outputPerMillion: perMillion(entry.pricing?.completion),
    contextLength: entry.context_length ?? null,
    inputModalities: entry.architecture?.input_modalities ?? [],
    outputModalities: entry.architecture?.output_modalities ?? [],
    created: entry.created ?? null,
    expirationDate: expirationDate(entry.expiration_date),
    huggingFaceId: entry.hugging_face_id || null,
  };
}

/** The date part of an ISO date or date-time; null for none, the placeholder, or no date at all. */
function expirationDate(value: string | null | undefined): string | null {
  const date = /^\d{4}-\d{2}-\d{2}/.exec(value ?? '')?.[0];
  return date === undefined || date === PLACEHOLDER_EXPIRATION ? null : date;
}
