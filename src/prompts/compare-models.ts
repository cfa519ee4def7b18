import * as z from 'zod';
import { InvalidArgumentsError } from '../errors.js';
import { modelUri } from '../resources/model.js';
import { shown } from '../tools/arguments.js';
import { modelRecord, resolveModels } from './models.js';
import { definePrompt, embedded, instruction } from './prompt.js';

const MIN_IDS = 2;
export const MAX_IDS = 5;
/** The longest list accepted, in characters: five ids with room to spare. */
export const MAX_IDS_LENGTH = 1000;

/** The ids of a comma-separated list, blanks dropped ("a, b," is two ids). */
export function splitIds(value: string): string[] {
  return value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}

export const compareModels = definePrompt({
  name: 'compare_models',
  title: 'Compare models',
  description: 'Compare 2–5 models side by side: price, context, price history.',
  arguments: [
    { name: 'ids', description: '2–5 model ids, comma-separated', required: true, completes: 'ids' },
  ],
  input: () => z.strictObject({ ids: z.string().trim().min(1).max(MAX_IDS_LENGTH) }),
  async build({ ids: raw }, context) {
    const ids = splitIds(raw);
    if (ids.length < MIN_IDS || ids.length > MAX_IDS) {
      throw new InvalidArgumentsError(
        `Invalid arguments for compare_models: "ids" is ${shown(raw)}; allowed: ${MIN_IDS} to ${MAX_IDS} model ids, comma-separated.`,
      );
    }
    const catalog = await context.api.listModels({}, context.signal);
    const models = resolveModels(catalog.items, ids, 'compare_models', 'ids');
    if (models.length < MIN_IDS) {
      throw new InvalidArgumentsError(
        `Invalid arguments for compare_models: "ids" is ${shown(raw)}, which names one model only; allowed: ${MIN_IDS} to ${MAX_IDS} different models.`,
      );
    }
    const records = await Promise.all(models.map((model) => modelRecord(context.api, model, context.signal)));
    const names = models.map((model) => model.id).join(', ');
    const text = [
      `Compare these models side by side: ${names}. Their catalog data is attached, one resource each ` +
        '(prices in USD per 1M input/output tokens, context length, open or commercial, attention rank, price history).',
      'Give one table, then say which suits which use, where one is clearly cheaper or has more context, ' +
        'and how prices moved. Attention measures how much notice a model gets now, not its quality.',
    ].join('\n');
    return {
      description: `Comparison of ${names}`,
      messages: [
        instruction(text, context),
        ...models.map((model, i) => embedded(modelUri(model.id), records[i])),
      ],
    };
  },
});
