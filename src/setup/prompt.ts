/**
 * What `setup` asks a person at a terminal: which clients (a numbered list), the base URL, and the
 * key with no echo. Questions go to stderr; answers come from stdin. Nothing here runs without a TTY.
 */

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
      if (!answered) reject(new PromptCancelled());
    });
  });
}

/**
 * The numbers a person typed for a list of `count` items: "1,3", "1 3", "all"; an empty answer
 * takes `defaults`. Undefined when the answer names no item of the list.
 */
export function parseChoice(
  answer: string,
  count: number,
  defaults: readonly number[],
): number[] | undefined {
  const text = answer.trim().toLowerCase();
  if (text === '') return [...defaults];
  if (text === 'all' || text === 'a') return Array.from({ length: count }, (_, i) => i);
  const picked = new Set<number>();
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const n = Number(part);
    if (!Number.isInteger(n) || n < 1 || n > count) return undefined;
    picked.add(n - 1);
  }
  return picked.size ? [...picked].sort((a, b) => a - b) : undefined;
}

/**
 * A line typed with no echo (the terminal in raw mode): Enter ends it, Backspace deletes, Ctrl-C
 * and Ctrl-D on an empty line cancel. A pasted key arrives as one chunk; that is handled too.
 */
export function readHidden(
  input: TtyInput,
  write: (text: string) => void,
  question: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    write(question);
    let value = '';
    const raw = typeof input.setRawMode === 'function';
    const finish = (error?: Error): void => {
      input.off('data', onData);
      if (raw) input.setRawMode?.(false);
      input.pause();
      write('\n');
      if (error) reject(error);
      else resolve(value.trim());
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || (ch === '\u0004' && value !== '')) {
          finish();
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish(new PromptCancelled());
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    if (raw) input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
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
