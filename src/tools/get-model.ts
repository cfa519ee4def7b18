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

/** What a listed model's answer says in place of a price history the service answered 404 for. */
function historyNotFoundNote(error: NotFoundError): string {
  return `Price history could not be read: the service answered 404 for ${inline(error.request.path)} although its catalog lists the model (it may have been removed just now). Try again later.`;
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
    const how = match.matchedBy === 'id' ? 'catalog id' : 'Hugging Face id';
    const listed = { catalogStatus: 'listed', matchedBy: match.matchedBy, model: match.model };
    const head = `${modelLine(match.model)}\nListed; matched by ${how}.`;
    try {
      const priceHistory = await api.getPriceHistory(match.model.id, signal, notes);
      return {
        structured: { ...listed, priceHistory },
        text: `${head}\n${renderPriceHistory(priceHistory)}`,
      };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The catalog just listed the model: a 404 for its history (a removal between the two reads,
      // or a service whose parts disagree) costs the history alone, never the model.
      const note = historyNotFoundNote(error);
      return {
        structured: { ...listed, priceHistory: null, priceHistoryNote: note },
        text: `${head}\n${note}`,
      };
    }
  },
});
