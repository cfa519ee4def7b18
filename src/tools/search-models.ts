import * as z from 'zod';
import { outputSchemas } from './output-schemas.js';
import { renderModels } from './render.js';
import { defineTool } from './tool.js';

const DEFAULT_LIMIT = 20;

export const searchModels = defineTool({
  name: 'search_models',
  title: 'Search models',
  description:
    'Catalog models matching the filters, ordered by attention (how much notice a model gets now, ' +
    'not its quality). total counts all matches.',
  input: () =>
    z.strictObject({
      vendor: z.string().trim().min(1).max(100).optional().describe('Catalog namespace, e.g. openai.'),
      maxInputPrice: z.number().min(0).optional().describe('Max USD per 1M input tokens.'),
      minContext: z.number().int().min(0).optional().describe('Min context length, tokens.'),
      limit: z.number().int().min(1).max(100).optional().describe('Max models returned (default 20).'),
    }),
  output: () => outputSchemas().ModelsOutput,
  async run({ limit = DEFAULT_LIMIT, ...filters }, { api, signal, notes }) {
    const page = await api.listModels(filters, signal, notes);
    // The service filters and orders; the runner only cuts the list, and keeps the service's total.
    const items = page.items.slice(0, limit);
    return { structured: { ...page, items }, text: renderModels(items, page.total, filters) };
  },
});
