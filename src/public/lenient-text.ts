/**
 * An origin's free text as the public source keeps it: trimmed, cut to `max` characters, and null
 * when absent or not text at all, so one odd field never costs the whole entry.
 */

import * as z from 'zod';

export function lenientText(max: number) {
  return z
    .string()
    .transform((text) => text.trim().slice(0, max))
    .nullish()
    .catch(null);
}
