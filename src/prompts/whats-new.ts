import * as z from 'zod';
import { type ChangesPage, EVENT_TYPES } from '../api/schemas.js';
import { describeError } from '../describe-error.js';
import { DAY_S } from '../feed/schedule.js';
import { inline } from '../text/change-line.js';
import { definePrompt, embedded, instruction } from './prompt.js';

const DEFAULT_DAYS = 7;
/** The service's largest page: one request covers all but the busiest windows. */
const MAX_CHANGES = 100;
/**
 * How many changes from before an empty window are attached instead: enough to say what last
 * happened, few enough that the one extra request stays small.
 */
export const RECENT_CHANGES = 5;

/** What the prompt was asked, and what the feed answered. */
export interface WhatsNewFacts {
  days: number;
  /** Start of the window, in the service's change times (Unix s). */
  since: number;
  type?: string | undefined;
  vendor?: string | undefined;
  /** The feed from `since` on. */
  window: ChangesPage;
  /**
   * Asked only when the window is empty: the feed's newest changes (no `since`, newest first, the
   * same filters, at most RECENT_CHANGES), or why they could not be read.
   */
  recent?: ChangesPage | { error: string } | undefined;
  /** Unix s. */
  now: number;
}

export interface WhatsNewContent {
  description: string;
  /** The request to the assistant. */
  text: string;
  /** Embedded as resources, in order. */
  attachments: { uri: string; value: unknown }[];
}

function changesUri(query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return `model-feed://changes?${params}`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const isoDay = (unixS: number) => new Date(unixS * 1000).toISOString().slice(0, 10);

/**
 * When the newest of `page` changed (Unix s): its `latest`, which without `since` is the newest
 * change time (the clock the window is counted in), else the first item's detection time.
 */
function newestChange(page: ChangesPage): number | undefined {
  if (page.latest !== null && Number.isFinite(page.latest)) return page.latest;
  const detected = Date.parse(page.items[0]?.detectedAt ?? '');
  return Number.isNaN(detected) ? undefined : Math.floor(detected / 1000);
}

const ACT_ON =
  'deprecations and retirements with their dates, price changes that move costs, API changes that can break clients';

/**
 * The prompt's words and attachments, from what the feed answered. Pure: the two requests are made
 * by `build`. An empty window says so, gives the date of the latest change, and attaches the most
 * recent changes instead, marked as outside the window, so that the answer is never an empty page
 * (the sandbox's sample data ends months before any default window).
 */
export function whatsNewContent(facts: WhatsNewFacts): WhatsNewContent {
  const { days, since, type, vendor, window, recent } = facts;
  const period = `the last ${plural(days, 'day')}`;
  const scope = [type && `type ${type}`, vendor && `vendor ${inline(vendor)}`].filter(Boolean).join(', ');
  const scoped = scope ? ` (${scope})` : '';
  const windowUri = changesUri({ since: String(since), type, model: vendor });
  const windowData = { days, since, type: type ?? null, vendor: vendor ?? null, ...window };
  if (window.items.length > 0) {
    const lines = [
      `Summarise what changed in AI models in ${period}${scoped}, from the change feed data attached (${windowUri}, oldest first).`,
      'Group the changes by kind (new models, price changes, API changes, deprecations, open-source surges); ' +
        'for each, name the model and give before → after where the data has it.',
      `Then list what to act on: ${ACT_ON}. Say which changes still await verification (pending).`,
    ];
    if (window.items.length >= MAX_CHANGES) {
      lines.push(`Only the first ${MAX_CHANGES} changes of the window are attached: say that more exist.`);
    }
    return {
      description: `Model changes of ${period}`,
      text: lines.join('\n'),
      attachments: [{ uri: windowUri, value: windowData }],
    };
  }
  const empty =
    `Nothing changed in AI models in ${period}${scoped}: the change feed has no changes since ` +
    `${isoDay(since)} (${windowUri}, attached, empty).`;
  if (recent === undefined || 'error' in recent || recent.items.length === 0) {
    const before =
      recent === undefined
        ? ''
        : 'error' in recent
          ? ` The changes before the window could not be read: ${recent.error}`
          : ` Nor has it any before the window${scope ? ' with these filters' : ''}.`;
    return {
      description: `No model changes in ${period}`,
      text: `${empty}${before}\nThe feed has no changes in this window: say so plainly.`,
      attachments: [{ uri: windowUri, value: windowData }],
    };
  }
  const count = recent.items.length;
  const latest = newestChange(recent);
  const recentUri = changesUri({ limit: String(RECENT_CHANGES), type, model: vendor });
  const attached =
    count === 1
      ? 'The most recent change is attached instead'
      : `The ${count} most recent changes are attached instead`;
  const when =
    latest === undefined
      ? undefined
      : `${isoDay(latest)}, ${plural(Math.max(0, Math.floor((facts.now - latest) / DAY_S)), 'day')} ago`;
  const lines = [
    empty,
    `${when ? `The latest change${scope ? ' of this kind' : ' in the feed'} is from ${when}. ` : ''}` +
      `${attached} (${recentUri}, newest first, marked "outsideWindow": true): all from before ${period}.`,
    `Say plainly first that nothing changed in ${period}` +
      `${latest === undefined ? '' : `, and that the latest change is from ${isoDay(latest)}`}.`,
    'Then summarise the attached older changes under a heading that says they are from before the window, ' +
      'never as recent news: group them by kind, and for each give its date, name the model and give before → after where the data has it.',
    `Then list what among them may still need action: ${ACT_ON}. Say which still await verification (pending).`,
  ];
  return {
    description:
      latest === undefined
        ? `No model changes in ${period}; the most recent attached instead`
        : `No model changes in ${period}; the latest, from ${isoDay(latest)}, attached instead`,
    text: lines.join('\n'),
    attachments: [
      { uri: windowUri, value: windowData },
      {
        uri: recentUri,
        value: {
          outsideWindow: true,
          note: `The feed's most recent changes, newest first: all from before ${period} (since ${isoDay(since)}), not new.`,
          days,
          since,
          type: type ?? null,
          vendor: vendor ?? null,
          ...recent,
        },
      },
    ],
  };
}

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
    const now = Math.floor(context.now / 1000);
    // The window is counted in the service's change times: `since` is what the feed filters on.
    const since = Math.max(0, now - days * DAY_S);
    const window = await context.api.listChanges(
      { since, type, model: vendor, limit: MAX_CHANGES },
      context.signal,
    );
    // One more request at most, and only for an empty window: the newest changes before it.
    let recent: WhatsNewFacts['recent'];
    if (window.items.length === 0) {
      recent = await context.api
        .listChanges({ type, model: vendor, limit: RECENT_CHANGES }, context.signal)
        .catch((error: unknown) => {
          // The window's answer stands without them; a cancelled request ends the prompt.
          if (context.signal.aborted) throw error;
          return { error: describeError(error) };
        });
    }
    const content = whatsNewContent({ days, since, type, vendor, window, recent, now });
    return {
      description: content.description,
      messages: [
        instruction(content.text, context),
        ...content.attachments.map(({ uri, value }) => embedded(uri, value)),
      ],
    };
  },
});
