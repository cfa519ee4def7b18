/**
 * zod schemas for what the REST API returns, lenient on purpose: unknown fields pass through
 * untouched (loose objects), enum-like fields (eventType, type, verificationStatus) are kept as
 * plain strings so a value added by the service later does not break the runner, and a missing
 * optional field (or one of the wrong type) becomes null. Only a body that is not the documented
 * shape at all fails: a required field missing or of the wrong type.
 * The tools' output schemas are picks of these (tools/output-schemas.ts): whatever the parser
 * produces then always satisfies them.
 */

import * as z from 'zod';
import { once } from '../once.js';

export const EVENT_TYPES = [
  'new_model',
  'price_change',
  'api_change',
  'open_source_surge',
  'deprecation',
] as const;

/**
 * The schemas are built on first use, not at load: building zod schemas is most of what loading
 * this module costs, a few milliseconds of a first start. The first parse builds them, or the idle
 * warm-up after `initialize` (runtime.ts) does, while the client is quiet.
 */
function buildApiSchemas() {
  /**
   * An optional field: absent, null or not of its type, it reads as null. `.catch(null)` rather than
   * `.default(null)`: the same answer for an absent field, half the parse time, and a field of the
   * wrong type costs that field, not the whole answer.
   */
  const optionalString = z.string().nullable().catch(null);
  const optionalNumber = z.number().nullable().catch(null);
  const optionalInteger = z.number().int().nullable().catch(null);
  /**
   * Paging fields stay strict about their type: a cursor read as null would end paging early and
   * skip items without a word, where a clear "unexpected response" lets the user know.
   */
  const cursor = z.number().int().nullable().default(null);

  const ChangeEventSchema = z.looseObject({
    id: z.string(),
    eventType: z.string(),
    title: z.string(),
    summary: optionalString,
    beforeValue: optionalString,
    afterValue: optionalString,
    sourceUrl: optionalString,
    sourceName: optionalString,
    verificationStatus: optionalString,
    official: z.boolean().nullable().catch(null),
    detectedAt: z.string(),
    publishedAt: optionalString,
    model: z.looseObject({
      slug: z.string(),
      name: optionalString,
      company: optionalString,
      accentColor: optionalString,
    }),
  });

  const ChangesPageSchema = z.looseObject({
    items: z.array(ChangeEventSchema),
    nextCursor: cursor,
    latest: cursor,
  });

  const ModelSchema = z.looseObject({
    id: z.string(),
    name: optionalString,
    displayName: optionalString,
    vendor: optionalString,
    type: optionalString,
    pricing: z
      .looseObject({ inputPerMillion: optionalNumber, outputPerMillion: optionalNumber })
      .nullable()
      .catch(null),
    contextLength: optionalInteger,
    listedAt: optionalInteger,
    huggingfaceId: optionalString,
    attention: z
      .looseObject({
        rank: optionalInteger,
        score: optionalNumber,
        newsCount: optionalInteger,
        opinions: optionalInteger,
      })
      .nullable()
      .catch(null),
    url: optionalString,
  });

  const ModelsPageSchema = z.looseObject({
    items: z.array(ModelSchema),
    total: z.number().int(),
  });

  const PricePointSchema = z.looseObject({
    inputPrice: optionalNumber,
    outputPrice: optionalNumber,
    observedAt: z.number().int(),
  });

  const PriceHistorySchema = z.looseObject({
    id: z.string(),
    currency: optionalString,
    unit: optionalString,
    since: optionalInteger,
    points: z.array(PricePointSchema),
  });

  return {
    ChangeEvent: ChangeEventSchema,
    ChangesPage: ChangesPageSchema,
    Model: ModelSchema,
    ModelsPage: ModelsPageSchema,
    PricePoint: PricePointSchema,
    PriceHistory: PriceHistorySchema,
  };
}

type ApiSchemas = ReturnType<typeof buildApiSchemas>;

/** The REST API's response schemas, built once, on the first call. */
export const apiSchemas: () => ApiSchemas = once(buildApiSchemas);

export type ChangeEvent = z.infer<ApiSchemas['ChangeEvent']>;
export type ChangesPage = z.infer<ApiSchemas['ChangesPage']>;
export type Model = z.infer<ApiSchemas['Model']>;
export type ModelsPage = z.infer<ApiSchemas['ModelsPage']>;
export type PricePoint = z.infer<ApiSchemas['PricePoint']>;
export type PriceHistory = z.infer<ApiSchemas['PriceHistory']>;
