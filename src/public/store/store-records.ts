/**
 * What the files store writes, and how it reads it back. The files are on the user's disk, where
 * another process (or a hand) may have written anything: every value is checked, a record that
 * does not fit is refused whole (a head) or skipped (a log line), never trusted.
 */

import * as z from 'zod';
import { apiSchemas } from '../../api/schemas.js';
import { once } from '../../once.js';
import { MAX_LINE_BYTES, MAX_LOG_BYTES } from './jsonl-log.js';
import type { PollRecord, StoredEvent, StoredPricePoint } from './store.js';

/** The caller's state is ~200 KB today; a head past this was not written by us. */
export const MAX_HEAD_BYTES = 64 * 1024 * 1024;
/** The last second of year 9999: a later instant cannot be written as a date-time. */
const MAX_UNIX_SECONDS = 253_402_300_799;
/** An origin's name or a reason it failed is a word or two; the head is bounded as a whole anyway. */
const MAX_POLL_TEXT = 300;

/** head.json: the commit point. A log's bytes count only up to the length it records. */
export interface HeadFile {
  readonly version: 1;
  /**
   * Changes whenever the logs start over (an unreadable head) or were found cut: a reader holding
   * lines of another generation reads again from the start instead of trusting its offsets.
   */
  readonly generation: string;
  readonly takenAt: number;
  readonly recordingSince: number;
  readonly lastChangeTime: number;
  readonly polls: number;
  readonly lastPoll: PollRecord;
  readonly lengths: LogLengths;
  readonly state: unknown;
}

export interface LogLengths {
  readonly feed: number;
  readonly prices: number;
  readonly polls: number;
}

const schemas = once(() => {
  const seconds = z.number().int().min(0).max(MAX_UNIX_SECONDS);
  const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
  const length = z.number().int().min(0).max(MAX_LOG_BYTES);
  const price = z.number().finite().min(0).nullable().catch(null);
  return {
    head: z.object({
      version: z.literal(1),
      generation: z.string().max(64),
      takenAt: seconds,
      recordingSince: seconds,
      lastChangeTime: count,
      polls: count,
      lastPoll: z.object({
        takenAt: seconds,
        origins: z.record(z.string().max(MAX_POLL_TEXT), z.string().max(MAX_POLL_TEXT)).catch({}),
      }),
      lengths: z.object({ feed: length, prices: length, polls: length }),
      state: z.unknown(),
    }),
    feedLine: z.object({ t: count.min(1), e: apiSchemas().ChangeEvent }),
    priceLine: z.object({ id: z.string().min(1).max(1000), i: price, o: price, at: seconds }),
  };
});

/**
 * Nesting the store's own records never reach (an event nests 3 deep, the head's state 6): a line
 * nested deeper was not written here, and would overflow the stack of whatever writes it out again.
 */
const MAX_DEPTH = 32;

function parseJson(text: string): unknown {
  if (!nestedWithin(text, MAX_DEPTH)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether the JSON text nests arrays and objects at most `max` deep: one pass, strings skipped. */
function nestedWithin(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return false;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return true;
}

/** The head, or why it cannot be one. */
export function parseHead(text: string): HeadFile | string {
  const parsed = schemas().head.safeParse(parseJson(text));
  if (parsed.success) return parsed.data;
  return `not a head of this version (${parsed.error.issues[0]?.path.join('.') || 'not a JSON object'})`;
}

export function encodeHead(head: HeadFile): string {
  return JSON.stringify(head);
}

export function parseFeedLine(line: string): StoredEvent | undefined {
  const parsed = schemas().feedLine.safeParse(parseJson(line));
  return parsed.success ? { changeTime: parsed.data.t, event: parsed.data.e } : undefined;
}

export function encodeFeedLine({ changeTime, event }: StoredEvent): string {
  return `${JSON.stringify({ t: changeTime, e: event })}\n`;
}

export function parsePriceLine(line: string): StoredPricePoint | undefined {
  const parsed = schemas().priceLine.safeParse(parseJson(line));
  if (!parsed.success) return undefined;
  const { id, i, o, at } = parsed.data;
  return { id, inputPrice: i, outputPrice: o, observedAt: at };
}

/** Compact: a price point is most of a poll that changed something. */
export function encodePriceLine(point: StoredPricePoint): string {
  return `${JSON.stringify({ id: point.id, i: point.inputPrice, o: point.outputPrice, at: point.observedAt })}\n`;
}

export function encodePollLine(poll: PollRecord): string {
  return `${JSON.stringify({ takenAt: poll.takenAt, origins: poll.origins })}\n`;
}

/** Refuses, before anything is written, a head that the next read would find unreadable. */
export function checkHeadReadsBack(text: string): void {
  const parsed = Buffer.byteLength(text) > MAX_HEAD_BYTES ? `over ${MAX_HEAD_BYTES} bytes` : parseHead(text);
  if (typeof parsed === 'string') {
    throw new Error(`the public store cannot record this snapshot: its head would not read back (${parsed})`);
  }
}

/**
 * Each item's line, all of them: a line that would not read back (not the shape readers check,
 * or over the line bound) is refused before anything is written, never recorded to be skipped.
 */
export function encodeLines<T>(
  items: readonly T[],
  encode: (item: T) => string,
  readsBack: (line: string) => unknown,
  name: (item: T) => string,
): string {
  const lines = items.map((item) => {
    const line = encode(item);
    if (Buffer.byteLength(line) > MAX_LINE_BYTES || readsBack(line) === undefined) {
      throw new Error(`the public store cannot record ${name(item)}: it would not read back`);
    }
    return line;
  });
  return lines.join('');
}
