/**
 * What `setup` asks a person at a terminal: which clients (a numbered list), the base URL, and the
 * key with no echo. Questions go to stderr; answers come from stdin. Nothing here runs without a TTY.
 * Each answer is judged where it is typed and asked for again, a bounded number of times.
 */

import { PASTE_END, PASTE_START, type Refusal, type Verdict } from './answers.js';

export interface TtyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class PromptCancelled extends Error {
  override name = 'PromptCancelled';
  constructor() {
    super('cancelled');
  }
}

/** stdin ended (Ctrl-D, a closed terminal) before a question was answered. */
export class InputEnded extends Error {
  override name = 'InputEnded';
  constructor() {
    super('input ended');
  }
}

/** As many unusable answers in a row as one question allows. */
export class TooManyAnswers extends Error {
  override name = 'TooManyAnswers';
  constructor(
    /** What was asked for, as a message names it: "base URL". */
    readonly what: string,
    readonly last: Refusal,
  ) {
    super(`no usable ${what} after ${MAX_ANSWERS} answers`);
  }
}

/** Unusable answers in a row to one question before setup stops: a typo or two, not a loop. */
export const MAX_ANSWERS = 3;

/**
 * Asks until `check` accepts an answer, saying why each refused one was refused. An empty answer
 * takes what the last refusal offered; `question` is told the offer, to show it.
 */
export async function askUntilValid<T>(options: {
  what: string;
  ask(offer: string | undefined): Promise<string>;
  check(answer: string): Verdict<T> | Promise<Verdict<T>>;
  write(text: string): void;
}): Promise<T> {
  let offer: string | undefined;
  let refusal: Refusal | undefined;
  for (let answers = 0; answers < MAX_ANSWERS; answers++) {
    const typed = await options.ask(offer);
    const verdict = await options.check(typed === '' && offer !== undefined ? offer : typed);
    if ('value' in verdict) return verdict.value;
    refusal = verdict;
    offer = verdict.offer;
    const more = answers < MAX_ANSWERS - 1;
    options.write(`${verdict.problem}${more && verdict.again ? ` ${verdict.again}` : ''}\n`);
  }
  throw new TooManyAnswers(options.what, refusal!);
}

/** One visible line of input. */
export function askLine(input: TtyInput, write: (text: string) => void, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = process
      .getBuiltinModule('node:readline')
      .createInterface({ input, output: undefined, terminal: false });
    write(question);
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line.trim());
    });
    rl.once('close', () => {
      if (!answered) reject(new InputEnded());
    });
  });
}

/**
 * The items a person picked from a list of `count`: "1,3", "1 3", "all", or, with `named`, names
 * ("cursor, codex") that it turns into 0-based indexes; an empty answer takes `defaults`.
 * Undefined when any part of the answer names no item of the list.
 */
export function parseChoice(
  answer: string,
  count: number,
  defaults: readonly number[],
  named: (word: string) => number | undefined = () => undefined,
): number[] | undefined {
  const text = answer.trim().toLowerCase();
  if (text === '') return [...defaults];
  if (text === 'all' || text === 'a') return Array.from({ length: count }, (_, i) => i);
  const picked = new Set<number>();
  const item = (word: string) => (/^\d+$/.test(word) ? Number(word) - 1 : named(word));
  // A name as the list shows it may hold a space ("vs code"): each comma-separated part is tried
  // whole first, then word by word.
  const parts = text.split(',').map((part) => part.trim());
  for (const part of parts.filter(Boolean)) {
    const whole = /\s/.test(part) ? named(part) : undefined;
    for (const n of whole === undefined ? part.split(/\s+/).map(item) : [whole]) {
      if (n === undefined || !Number.isInteger(n) || n < 0 || n >= count) return undefined;
      picked.add(n);
    }
  }
  return picked.size ? [...picked].sort((a, b) => a - b) : undefined;
}

/** A line typed with no echo, and whether a special key was pressed in it. */
export interface HiddenAnswer {
  text: string;
  /** An arrow key, Escape or another key that sends an escape sequence (a paste's markers aside). */
  specialKeys: boolean;
}

/**
 * A line typed with no echo (the terminal in raw mode): Enter ends it, Backspace deletes, Ctrl-U
 * clears the line, Ctrl-C cancels (raw mode turns it into a key, not SIGINT), and Ctrl-D on an
 * empty line (or stdin's end) is the end of input. A pasted key arrives as one chunk, with the
 * markers of a bracketed paste around it when the terminal is in that mode; the markers are
 * dropped. Any other escape sequence is kept out of the answer and reported, since the person
 * cannot see what it did to a line they cannot see.
 */
export function readHidden(
  input: TtyInput,
  write: (text: string) => void,
  question: string,
): Promise<HiddenAnswer> {
  return new Promise((resolve, reject) => {
    write(question);
    let value = '';
    let specialKeys = false;
    const raw = typeof input.setRawMode === 'function';
    const finish = (error?: Error): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      if (raw) input.setRawMode?.(false);
      input.pause();
      write('\n');
      if (error) reject(error);
      else resolve({ text: value.trim(), specialKeys });
    };
    const escapes = escapeSkipper();
    const onData = (chunk: Buffer | string): void => {
      for (const ch of chunk.toString()) {
        const skipped = escapes.skips(ch);
        if (escapes.endedSpecialKey()) specialKeys = true;
        if (skipped) continue;
        if (ch === '\r' || ch === '\n' || (ch === '\u0004' && value !== '')) {
          finish();
          return;
        }
        if (ch === '\u0003') {
          finish(new PromptCancelled());
          return;
        }
        if (ch === '\u0004') {
          finish(new InputEnded());
          return;
        }
        if (ch === '\u0015') {
          value = '';
          specialKeys = false;
        } else if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    const onEnd = (): void => finish(new InputEnded());
    if (raw) input.setRawMode?.(true);
    input.on('data', onData);
    input.once('end', onEnd);
    input.resume();
  });
}

/** What a terminal in bracketed-paste mode sends around a paste: `ESC [ 200 ~` … `ESC [ 201 ~`. */
const PASTE_MARKERS = new Set([PASTE_START, PASTE_END]);

/**
 * Recognises the escape sequences a terminal sends for keys and pastes (arrow keys `ESC [ C`,
 * `ESC O D`; bracketed paste's `ESC [ 200 ~` and `ESC [ 201 ~`), character by character, so that
 * none of their characters becomes part of a hidden answer, even when one arrives split across
 * reads. `skips(ch)` says whether `ch` belongs to a sequence; `endedSpecialKey()` says, once, that
 * a sequence other than a paste marker (or a lone Escape) has ended.
 */
export function escapeSkipper(): { skips(ch: string): boolean; endedSpecialKey(): boolean } {
  // 'esc': after ESC; 'csi': inside ESC [ …, up to its final byte; 'ss3': the one key after ESC O.
  let state: 'text' | 'esc' | 'csi' | 'ss3' = 'text';
  let sequence = '';
  let special = false;
  const end = (): void => {
    state = 'text';
    if (!PASTE_MARKERS.has(sequence)) special = true;
    sequence = '';
  };
  const skips = (ch: string): boolean => {
    switch (state) {
      case 'text':
        if (ch !== '\x1b') return false;
        state = 'esc';
        sequence = ch;
        return true;
      case 'esc':
        // Enter or Ctrl-C after a lone Escape is the user's, not part of a sequence.
        if (ch < ' ') {
          end();
          return false;
        }
        sequence += ch;
        if (ch === '[') state = 'csi';
        else if (ch === 'O') state = 'ss3';
        else end();
        return true;
      case 'csi':
        // Parameters and intermediates (0x20-0x3f) continue it; a final byte (0x40-0x7e) ends it.
        if (ch < ' ' || ch > '~') {
          end();
          return false;
        }
        sequence += ch;
        if (ch >= '@') end();
        return true;
      case 'ss3':
        end();
        return ch >= ' ';
    }
  };
  return {
    skips,
    endedSpecialKey() {
      const ended = special;
      special = false;
      return ended;
    },
  };
}

/** The key piped on stdin (not a TTY): its first line, trimmed; at most 64 KiB are read. */
export async function readPipedLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n') || text.length > 64 * 1024) break;
  }
  return (text.split(/\r?\n/)[0] ?? '').trim();
}
