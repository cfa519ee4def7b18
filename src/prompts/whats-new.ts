import * as z from 'zod';
import { EVENT_TYPES } from '../api/schemas.js';
import { DAY_S } from '../feed/schedule.js';
import { inline } from '../text/change-line.js';
import { definePrompt, embedded, instruction } from './prompt.js';

const DEFAULT_DAYS = 7;
/** The service's largest page: one request covers all but the busiest windows. */
const MAX_CHANGES = 100;

export const whatsNew = definePrompt({
  name: 'whats_new',
  title: "What's new",
  description: 'Summarise recent model changes and what to act on.',
  arguments: [
    { name: 'days', description: `Days back (default ${DEFAULT_DAYS})`, completes: 'days' },
    { name: 'type', description: 'Event type', completes: 'eventType' },
    { name: 'vendor', description: 'Vendor slug, e.g. openai', completes: 'vendor' },
  ],
  input: () =>
    z.strictObject({
      days: z.number().int().min(1).max(365).optional(),
      type: z.enum(EVENT_TYPES).optional(),
      vendor: z.string().trim().min(1).max(100).optional(),
    }),
  async build({ days = DEFAULT_DAYS, type, vendor }, context) {
    // The window is counted in the service's change times: `since` is what the feed filters on.
    const since = Math.max(0, Math.floor(context.now / 1000) - days * DAY_S);
    const page = await context.api.listChanges(
      { since, type, model: vendor, limit: MAX_CHANGES },
      context.signal,
    );
    const query = new URLSearchParams({ since: String(since) });
    if (type) query.set('type', type);
    if (vendor) query.set('model', vendor);
    const uri = `model-feed://changes?${query}`;
    const scope = [type && `type ${type}`, vendor && `vendor ${inline(vendor)}`].filter(Boolean).join(', ');
    const lines = [
      `Summarise what changed in AI models in the last ${days} day${days === 1 ? '' : 's'}${scope ? ` (${scope})` : ''}, ` +
        `from the change feed data attached (${uri}, oldest first).`,
      'Group the changes by kind (new models, price changes, API changes, deprecations, open-source surges); ' +
        'for each, name the model and give before → after where the data has it.',
      'Then list what to act on: deprecations and retirements with their dates, price changes that move ' +
        'costs, API changes that can break clients. Say which changes still await verification (pending).',
    ];
    if (page.items.length === 0) lines.push('The feed has no changes in this window: say so plainly.');
    if (page.items.length >= MAX_CHANGES) {
      lines.push(`Only the first ${MAX_CHANGES} changes of the window are attached: say that more exist.`);
    }
    return {
      description: `Model changes of the last ${days} days`,
      messages: [
        instruction(lines.join('\n'), context),
        embedded(uri, { days, since, type: type ?? null, vendor: vendor ?? null, ...page }),
      ],
    };
  },
});
