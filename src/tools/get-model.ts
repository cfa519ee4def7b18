import * as z from 'zod';
import { NotFoundError } from '../errors.js';
import { inline } from '../text/change-line.js';
import { closestIds, findModel } from './model-lookup.js';
import { outputSchemas } from './output-schemas.js';
import { modelLine, renderPriceHistory } from './render.js';
import { defineTool } from './tool.js';

/** Both the asked id and the catalog's ids are shown through `inline`: neither may forge a line. */
function notListed(id: string, suggestions: string[]) {
  const hint = suggestions.length
    ? ` Close ids: ${suggestions.map(inline).join(', ')}.`
    : ' No close ids; search_models lists the catalog.';
  return {
    structured: {
      catalogStatus: 'not_listed',
      matchedBy: null,
      model: null,
      priceHistory: null,
      suggestions,
    },
    text: `"${inline(id)}" is not listed in the catalog (not_listed).${hint}`,
  };
}

export const getModel = defineTool({
  name: 'get_model',
  title: 'Get model',
  description:
    'One model by catalog id (vendor/model) or Hugging Face id, any case: price, context length, ' +
    'catalog status, price history. Unknown ids get not_listed and suggestions.',
  input: () =>
    z.strictObject({
      id: z.string().trim().min(1).max(200).describe('e.g. openai/gpt-4o or deepseek-ai/DeepSeek-R1'),
    }),
  output: () => outputSchemas().GetModelOutput,
  async run({ id }, { api, signal, notes }) {
    const catalog = await api.listModels({}, signal, notes);
    const match = findModel(catalog.items, id);
    if (!match) return notListed(id, closestIds(catalog.items, id));
    try {
      const priceHistory = await api.getPriceHistory(match.model.id, signal, notes);
      const how = match.matchedBy === 'id' ? 'catalog id' : 'Hugging Face id';
      return {
        structured: { catalogStatus: 'listed', matchedBy: match.matchedBy, model: match.model, priceHistory },
        text: `${modelLine(match.model)}\nListed; matched by ${how}.\n${renderPriceHistory(priceHistory)}`,
      };
    } catch (error) {
      // The history endpoint has the last word on catalog membership: a model that left the
      // catalog since the list was read is not listed, which is an answer, not an error.
      if (error instanceof NotFoundError) return notListed(id, closestIds(catalog.items, id));
      throw error;
    }
  },
});
