/**
 * The tools' output schemas. Each is a pick of the lenient parse schemas, so every value the
 * parser produces satisfies it; objects stay loose, so the fields not listed here (summary,
 * sourceName, attention, …) still pass. They list what a client most needs to know, within the
 * context budget: the whole `tools/list` answer costs a model about 1,200 tokens, no more.
 */

import * as z from 'zod';
import { apiSchemas } from '../api/schemas.js';

/**
 * Built only when asked: the JSON Schemas for `tools/list` are made from these at build time
 * (scripts/tool-json-schemas.ts), and nothing at run time checks a result against them, so the
 * server never builds them.
 */
export function outputSchemas() {
  const {
    ChangeEvent: ChangeEventSchema,
    Model: ModelSchema,
    PriceHistory: PriceHistorySchema,
    PricePoint: PricePointSchema,
  } = apiSchemas();
  const ChangeSummary = ChangeEventSchema.pick({
    id: true,
    eventType: true,
    title: true,
    beforeValue: true,
    afterValue: true,
    verificationStatus: true,
    detectedAt: true,
  }).extend({ model: ChangeEventSchema.shape.model.pick({ slug: true }) });

  const ChangesOutput = z.looseObject({
    items: z.array(ChangeSummary),
    nextCursor: z.number().int().nullable(),
    latest: z.number().int().nullable(),
  });

  const ModelSummary = ModelSchema.pick({ id: true, pricing: true, contextLength: true });

  const ModelsOutput = z.looseObject({ items: z.array(ModelSummary), total: z.number().int() });

  const GetModelOutput = z.looseObject({
    catalogStatus: z.enum(['listed', 'not_listed']),
    matchedBy: z.enum(['id', 'huggingfaceId']).nullable(),
    model: ModelSummary.nullable(),
    priceHistory: PriceHistorySchema.pick({ id: true })
      .extend({
        points: z.array(PricePointSchema.pick({ inputPrice: true, outputPrice: true, observedAt: true })),
      })
      .nullable(),
    /** Close catalog ids, closest first, when the id is not listed; what the text calls "Close ids". */
    suggestions: z.array(z.string()).optional(),
  });

  return { ChangesOutput, ModelsOutput, GetModelOutput };
}
