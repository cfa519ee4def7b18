import * as z from 'zod';
import { EVENT_TYPES } from '../api/schemas.js';
import { outputSchemas } from './output-schemas.js';
import { renderChanges } from './render.js';
import { defineTool } from './tool.js';

export const listModelChanges = defineTool({
  name: 'list_model_changes',
  title: 'List model changes',
  description:
    'Changes to AI models: new models, price changes, API changes, deprecations, open-source surges. ' +
    'Without since: newest first. To follow the feed, call with since=0 (or a Unix time), then with ' +
    'since set to the latest value of each answer: no change is skipped.',
  input: () =>
    z.strictObject({
      since: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Unix seconds: only changes after it, oldest first.'),
      type: z.enum(EVENT_TYPES).optional().describe('Only this kind of change.'),
      model: z
        .string()
        .trim()
        .min(1)
        .max(100)
        // A model id here matches nothing (the filter takes the vendor slug): said, not "0 changes".
        // A refinement, not a pattern: the tool's JSON Schema stays the hosted endpoint's.
        .refine((value) => !value.includes('/'), {
          error: (issue) =>
            `a vendor slug is meant (here ${String(issue.input).split('/')[0]?.trim() || 'openai'}), not a model id; get_model gives one model`,
        })
        .optional()
        .describe('Vendor slug, e.g. openai.'),
      limit: z.number().int().min(1).max(100).optional().describe('Items per answer (default 20).'),
    }),
  output: () => outputSchemas().ChangesOutput,
  unavailableNote:
    'The change feed needs the service: it is never answered from a cached copy, which could hide changes.',
  async run(args, { api, signal, notes }) {
    // Forwarded unchanged: the service owns paging, order and defaults.
    const page = await api.listChanges(args, signal, notes);
    return { structured: page, text: renderChanges(page, args) };
  },
});
