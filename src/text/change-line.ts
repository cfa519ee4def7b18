/**
 * Upstream values as one line of text shows them. Every string from the service (or echoed from the
 * caller) goes into a line through `inline`: a value holding a line break, an escape sequence or a
 * bidi override must not forge a line, nor act on the terminal it is printed to. Used by the tools'
 * renderings, the watch sinks, resources and prompts alike.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { oneLine } from './terminal.js';

/** The most of one value a line shows: far more than any real title, and one huge value stays small. */
export const MAX_INLINE_LENGTH = 300;

/** The first `length` code units, without leaving half of a surrogate pair at the end. */
function cut(text: string, length: number): string {
  const head = text.slice(0, length);
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
}

/**
 * One upstream value as a line shows it: on one line, terminal-safe, trimmed, and cut to
 * MAX_INLINE_LENGTH with an ellipsis. Empty for null, so callers test the shown value, not the raw.
 */
export function inline(value: string | null | undefined): string {
  if (!value) return '';
  // The usual value: short, and clean already (oneLine then returns it as it is).
  if (value.length <= MAX_INLINE_LENGTH) return oneLine(value).trim();
  // Cleaning a prefix is enough (the rest would be cut anyway) and keeps a huge value cheap.
  const prefix = MAX_INLINE_LENGTH * 4;
  const clean = oneLine(cut(value, prefix)).trim();
  if (clean.length <= MAX_INLINE_LENGTH && value.length <= prefix) return clean;
  return `${cut(clean, MAX_INLINE_LENGTH - 1).trimEnd()}…`;
}

function day(iso: string | null): string {
  return iso ? inline(iso.slice(0, 10)) : '';
}

function change(before: string, after: string): string | undefined {
  if (before && after) return `${before} → ${after}`;
  if (after) return `→ ${after}`;
  if (before) return `was ${before}`;
  return undefined;
}

export function changeLine(event: ChangeEvent): string {
  const detected = day(event.detectedAt);
  const published = day(event.publishedAt);
  const dates = published && published !== detected ? `${detected} (published ${published})` : detected;
  const slug = inline(event.model.slug);
  const name = inline(event.model.name);
  const title = inline(event.title);
  const before = inline(event.beforeValue);
  const after = inline(event.afterValue);
  // Titles such as "… price cut: in $5 / out $15 per 1M tokens → in $2.5 / out $10 per 1M tokens"
  // already hold both values: the line says them once.
  const inTitle = [before, after].every((value) => !value || title.includes(value));
  const parts = [
    [dates, inline(event.eventType)].filter(Boolean).join(' '),
    name && slug ? `${name} (${slug})` : name || slug,
    title,
    inTitle ? undefined : change(before, after),
    inline(event.verificationStatus),
    inline(event.sourceUrl) || inline(event.sourceName),
  ];
  return parts.filter(Boolean).join(' | ');
}
