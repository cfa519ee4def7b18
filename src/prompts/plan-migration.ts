import * as z from 'zod';
import type { Model } from '../api/schemas.js';
import { concernsModel, indexModels } from '../feed/concerns.js';
import { modelUri } from '../resources/model.js';
import { thousands } from '../tools/render.js';
import { modelRecord, resolveModels, vendorOf } from './models.js';
import { definePrompt, embedded, instruction } from './prompt.js';

/** Candidates attached: enough to choose from, few enough to read. */
const MAX_CANDIDATES = 10;
/** The service's largest page of the feed. */
const MAX_DEPRECATIONS = 100;

const price = (value: number | null | undefined): number => value ?? Number.POSITIVE_INFINITY;

/** Models with at least `model`'s context, cheapest input first (then output, then attention). */
export function migrationCandidates(catalog: readonly Model[], model: Model): Model[] {
  const minContext = model.contextLength ?? 0;
  return catalog
    .filter((m) => m !== model && (m.contextLength ?? 0) >= minContext)
    .map((m, index) => ({ m, index }))
    .sort(
      (a, b) =>
        price(a.m.pricing?.inputPerMillion) - price(b.m.pricing?.inputPerMillion) ||
        price(a.m.pricing?.outputPerMillion) - price(b.m.pricing?.outputPerMillion) ||
        a.index - b.index,
    )
    .slice(0, MAX_CANDIDATES)
    .map(({ m }) => m);
}

export const planMigration = definePrompt({
  name: 'plan_migration',
  title: 'Plan a migration',
  description: 'Plan a move off a model: its deprecations and cheaper candidates.',
  arguments: [{ name: 'id', description: 'Catalog or Hugging Face id', required: true, completes: 'id' }],
  input: () => z.strictObject({ id: z.string().trim().min(1).max(200) }),
  async build({ id }, context) {
    const { api, signal } = context;
    const catalog = await api.listModels({}, signal);
    const [model] = resolveModels(catalog.items, [id], 'plan_migration', 'id') as [Model];
    const vendor = vendorOf(model);
    const [record, deprecations] = await Promise.all([
      modelRecord(api, model, signal),
      api.listChanges({ type: 'deprecation', model: vendor, limit: MAX_DEPRECATIONS }, signal),
    ]);
    const index = indexModels(catalog.items);
    const notices = deprecations.items.filter((event) => concernsModel(event, index, model.id));
    const candidates = migrationCandidates(catalog.items, model);
    const minContext = model.contextLength ?? 0;
    const noticesUri = `model-feed://changes?${new URLSearchParams({ type: 'deprecation', model: vendor })}`;
    const candidatesUri = `model-feed://models?${new URLSearchParams({ minContext: String(minContext) })}`;
    const text = [
      `Plan a migration away from ${model.id}. Attached: the model with its price history; its deprecation ` +
        `notices from the change feed (${notices.length ? `${notices.length} found` : 'none found'}); and ` +
        `up to ${MAX_CANDIDATES} catalog models with at least its context length (${thousands(minContext)} tokens), ` +
        'cheapest input price first. Prices are USD per 1M tokens.',
      'Write the plan: whether and by when to move (from the notices, if any), two or three recommended ' +
        'replacements with their trade-offs in price, context and open or commercial weights, what to test ' +
        'before switching, and the steps. Attention measures notice, not quality.',
    ].join('\n');
    return {
      description: `Migration plan for ${model.id}`,
      messages: [
        instruction(text, context),
        embedded(modelUri(model.id), record),
        embedded(noticesUri, { model: model.id, items: notices }),
        embedded(candidatesUri, { minContext, orderedBy: 'inputPrice', items: candidates }),
      ],
    };
  },
});
