/**
 * The marking of a delivery as a person reads it, in front of the change's line (stdout's text,
 * Slack's text, the Atom entry's title): `[new]`, `[update: verification pending → official]`, and
 * for a rejected change `[REJECTED, not a real change; …]` first, so it never reads like one.
 */

import { changeLine, inline } from '../text/change-line.js';
import { type MarkedDelivery, type Marking, type TrackedField, VALUED_FIELDS } from './news.js';

/** What each field is called in a line. */
const FIELD_WORDS: Record<TrackedField, string> = {
  verificationStatus: 'verification',
  afterValue: 'value',
  beforeValue: 'value before',
  detectedAt: 'detected',
  publishedAt: 'published',
  title: 'title',
  summary: 'summary',
  sourceUrl: 'source',
  sourceName: 'source name',
  eventType: 'type',
};

function shown(field: TrackedField, value: unknown): string {
  if (typeof value !== 'string' || value === '') return '(none)';
  const text = inline(field === 'detectedAt' || field === 'publishedAt' ? value.slice(0, 10) : value);
  return text || '(none)';
}

/** `verification pending → official; value in $1 → in $2`, from the marking and the data now. */
export function movesText(marking: Marking, data: Readonly<Record<string, unknown>>): string {
  return marking.changed
    .map((field) => {
      const words = FIELD_WORDS[field];
      if (!VALUED_FIELDS.has(field)) return `${words} changed`;
      const was = field in marking.previous ? shown(field, marking.previous[field]) : '…';
      return `${words} ${was} → ${shown(field, data[field])}`;
    })
    .join('; ');
}

export function markingTag(marking: Marking, data: Readonly<Record<string, unknown>>): string {
  const moves = marking.delivery === 'update' ? movesText(marking, data) : '';
  const what = marking.delivery === 'new' ? 'new' : moves ? `update: ${moves}` : 'update';
  return marking.rejected ? `[REJECTED, not a real change; ${what}]` : `[${what}]`;
}

/** A delivered change as one text line, its marking first: what stdout and Slack show. */
export function markedLine({ marking, envelope, event }: MarkedDelivery): string {
  return `${markingTag(marking, envelope.data)} ${changeLine(event)}`;
}
