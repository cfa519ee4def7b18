import * as z from 'zod';
import { inline } from '../text/change-line.js';
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
    const text = renderModels(items, page.total, filters);
    const { vendor } = filters;
    if (page.total > 0 || vendor === undefined) return { structured: { ...page, items }, text };
    // Nothing for a vendor: is it a vendor at all? The whole catalog (cached) says which are.
    const vendors = new Set(
      (await api.listModels({}, signal, notes)).items.flatMap((model) => model.vendor ?? []),
    );
    if (vendors.has(vendor) || [...vendors].some((known) => known.toLowerCase() === vendor.toLowerCase())) {
      return { structured: { ...page, items }, text };
    }
    const suggestions = closeVendors(vendor, vendors);
    const hint = suggestions.length
      ? ` Close vendors: ${suggestions.map(inline).join(', ')}.`
      : ' Call search_models without vendor to see the catalog.';
    return {
      structured: { ...page, items, suggestions },
      text: `${text}\nNo vendor "${inline(vendor)}" in the catalog.${hint}`,
    };
  },
});

/** Squeezed for comparison: case, and the separators vendors spell differently (`open-ai`, `z_ai`). */
const squeeze = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Catalog vendors that contain the typed name or are contained in it, once squeezed (`mistral` →
 * `mistralai`, `meta` → `meta-llama`, `open-ai` → `openai`); the shortest first, at most three.
 */
function closeVendors(typed: string, vendors: ReadonlySet<string>): string[] {
  const wanted = squeeze(typed);
  if (wanted.length < 2) return [];
  return [...vendors]
    .filter((vendor) => {
      const known = squeeze(vendor);
      return known.length > 1 && (known.includes(wanted) || wanted.includes(known));
    })
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    .slice(0, 3);
}
