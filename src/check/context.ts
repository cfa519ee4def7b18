/**
 * What the text around a name says about it, on UTF-8 bytes (only ASCII decides, so the answers are
 * the same for a string's encoding): whether it sits in a URL, whether the code around it says
 * "model", and the version or variant suffix written after it. Pure, and bounded: each question
 * looks at most URL_LOOKBACK or CONTEXT_LOOKBACK bytes back, and only at a match.
 */

import { isDigit, TOKEN_BYTE } from './token-boundaries.js';

const encoder = new TextEncoder();

/** How far back a URL is looked for: the longest URLs in code are a few hundred bytes. */
const URL_LOOKBACK = 2048;
/**
 * How far back the code around a short name is read: a key and a list of a dozen names. Every
 * short name in a file may cost this much, so it stays small.
 */
const CONTEXT_LOOKBACK = 512;

const [SLASH, COLON, DASH, DOT, EQUALS, BANG, OPEN_PAREN, COMMA, PIPE, OPEN_BRACKET, NEWLINE] = [
  47, 58, 45, 46, 61, 33, 40, 44, 124, 91, 10,
];

const table = (chars: string) => {
  const bytes = new Uint8Array(256);
  for (const byte of encoder.encode(chars)) bytes[byte] = 1;
  return bytes;
};
const LETTERS_DIGITS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** What ids and URLs are made of, as near-miss.ts reads them. */
export const ID_BYTE = table(`${LETTERS_DIGITS}._:/-`);
/** What a key, parameter, variable or flag name is made of (`model_name`, `this.model?.id`, `--model`). */
const NAME_BYTE = table(`${LETTERS_DIGITS}_$.?-`);
const SPACE = table(' \t\r\n');
const QUOTE = table('"\'`');
const ALPHANUMERIC = table(LETTERS_DIGITS);

const utf8 = new TextDecoder();
/** ASCII bytes (id characters only) as a string, lower-cased. */
export const asciiLower = (bytes: Uint8Array, start: number, end: number) =>
  utf8.decode(bytes.subarray(start, end)).toLowerCase();

/**
 * At most this many members of a list are read back: a model list names one near the name (its
 * previous member, mostly), and a file of a million short names in one list must not read the
 * list back a million times.
 */
const MAX_MEMBERS = 32;

const MODEL = encoder.encode('model');
/** Whether the bytes from `start` spell `word` (lower-case ASCII letters), any case. */
function spells(bytes: Uint8Array, start: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if ((bytes[start + k]! | 0x20) !== word[k]) return false;
  return true;
}
/** Whether `start` to `end` holds `model`, any case, with no string made. */
function holdsModel(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i + MODEL.length <= end; i++) {
    if ((bytes[i]! | 0x20) === 109 && spells(bytes, i, MODEL)) return true;
  }
  return false;
}
const [OR, AND] = [encoder.encode('or'), encoder.encode('and')];

/**
 * Whether the text from `start` is inside a URL: the run of id characters it is part of holds a
 * `://` before it. Not a model, whatever its path reads: `https://api.groq.com/openai/v1`.
 */
export function inUrl(bytes: Uint8Array, start: number): boolean {
  const floor = Math.max(0, start - URL_LOOKBACK);
  for (let i = start - 1; i >= floor; i--) {
    const byte = bytes[i]!;
    if (!ID_BYTE[byte]) return false;
    if (byte === COLON && bytes[i + 1] === SLASH && bytes[i + 2] === SLASH) return true;
  }
  return false;
}

/**
 * Where a run's `://` is, from `start` to `end`, or -1: its tokens from there on are in a URL. Read
 * within the run only: a native search for the `:` went on past the run to the text's next one, so
 * a file with no colon was read to its end once per run.
 */
export function urlStartIn(bytes: Uint8Array, start: number, end: number): number {
  for (let i = start; i + 2 < end; i++) {
    if (bytes[i] === COLON && bytes[i + 1] === SLASH && bytes[i + 2] === SLASH) return i;
  }
  return -1;
}

/** Whether `start` to `end` is an API version, as URL paths name them: `v1`, `v2beta`, `v1alpha1`. */
export function isApiVersion(bytes: Uint8Array, start: number, end: number): boolean {
  if (bytes[start] !== 118 && bytes[start] !== 86) return false;
  let i = start + 1;
  const digits = i;
  while (i < end && isDigit(bytes[i]!)) i++;
  if (i === digits) return false;
  while (i < end && ((bytes[i]! >= 97 && bytes[i]! <= 122) || isDigit(bytes[i]!))) i++;
  return i === end;
}

/**
 * The catalog's vendors as code writes them when it qualifies a model: the slug (`openai`, `x-ai`),
 * without its dashes (`xai`), and without a trailing `ai` (`mistral` for `mistralai`).
 */
export function vendorSpellings(vendors: Iterable<string>): Set<string> {
  const spellings = new Set<string>();
  for (const vendor of vendors) {
    const plain = vendor.toLowerCase().replace(/-/g, '');
    spellings.add(vendor.toLowerCase()).add(plain);
    if (plain.endsWith('ai') && plain.length > 6) spellings.add(plain.slice(0, -2));
  }
  return spellings;
}

/** Words that join the members of a list in prose: "`gpt-4o` or `o3`". */
const isJoiningWord = (bytes: Uint8Array, start: number, end: number) =>
  (end - start === 2 && spells(bytes, start, OR)) || (end - start === 3 && spells(bytes, start, AND));

/**
 * Whether the code before `start` says that what starts there is a model: a key, parameter,
 * variable or flag whose name holds `model` (`model: "o3"`, `modelId = "o3"`, `model_name="o3"`,
 * `--model o3`, `"--model", "o3"`, `type ChatModelId = | 'o1' | 'o3'`), a call of a vendor's
 * provider (`openai("o3")`, `openai.chat("o3")`), a vendor before it (`openai/o3`), or a list
 * whose member before it is a model (`previous`, where the reference before this one starts:
 * `"gpt-5-mini", "o3"`, `gpt-4o or o3`, `(o1, o3)`). A string literal alone is not enough:
 * `tool_choice: "auto"`, `R = "r1"`, `{"optimize": "O3"}`.
 */
export function saysModel(
  bytes: Uint8Array,
  start: number,
  vendors: ReadonlySet<string>,
  previous = -1,
): boolean {
  const floor = Math.max(0, start - CONTEXT_LOOKBACK);
  let i = start - 1;
  if (i >= floor && bytes[i] === SLASH) {
    const end = i;
    for (i--; i >= floor && NAME_BYTE[bytes[i]!] && bytes[i] !== DOT; i--);
    return vendors.has(asciiLower(bytes, i + 1, end));
  }
  if (i >= floor && QUOTE[bytes[i]!]) i--;
  // The members of a list before it, back to what the list is.
  let inList = false;
  let members = 0;
  for (;;) {
    while (i >= floor && SPACE[bytes[i]!]) i--;
    if (i < floor) return false;
    const byte = bytes[i]!;
    if (byte === COMMA || byte === PIPE || byte === OPEN_BRACKET) {
      inList = true;
      i--;
      continue;
    }
    if (QUOTE[byte]) {
      const close = i;
      for (i--; i >= floor && bytes[i] !== byte && bytes[i] !== NEWLINE; i--);
      if (i < floor || bytes[i] !== byte) return false;
      // A flag given as a list member before it (`["--model", "o3"]`), or a model.
      if (previous > i && previous < close) return true;
      if (holdsModel(bytes, i + 1, close)) return true;
      if (++members > MAX_MEMBERS) return false;
      i--;
      continue;
    }
    if (!NAME_BYTE[byte]) break;
    // A bare member, or a word joining members: only in a list, else it is what the list is.
    const end = i + 1;
    let j = i;
    while (j >= floor && NAME_BYTE[bytes[j]!]) j--;
    if (previous > j && previous < end) return true;
    if (!inList && !isJoiningWord(bytes, j + 1, end)) break;
    if (++members > MAX_MEMBERS) return false;
    inList = true;
    i = j;
  }
  let operator = false;
  let call = false;
  for (
    ;
    i >= floor && (bytes[i] === COLON || bytes[i] === EQUALS || bytes[i] === BANG || bytes[i] === OPEN_PAREN);
    i--
  ) {
    operator = true;
    if (bytes[i] === OPEN_PAREN) call = true;
  }
  while (operator && i >= floor && SPACE[bytes[i]!] && bytes[i] !== NEWLINE) i--;
  if (i >= floor && QUOTE[bytes[i]!]) i--;
  const end = i + 1;
  while (i >= floor && NAME_BYTE[bytes[i]!]) i--;
  if (holdsModel(bytes, i + 1, end)) return true;
  if (!call) return false;
  let dot = i + 1;
  while (dot < end && bytes[dot] !== DOT) dot++;
  return vendors.has(asciiLower(bytes, i + 1, dot));
}

/** Whether the word after a name, on its line, is `model` or `models`: "With o1 models and newer". */
export function modelWordAfter(bytes: Uint8Array, end: number): boolean {
  let i = end;
  if (QUOTE[bytes[i]!]) i++;
  if (bytes[i] !== 32 && bytes[i] !== 9) return false;
  while (bytes[i] === 32 || bytes[i] === 9) i++;
  if (!spells(bytes, i, MODEL)) return false;
  const after = (bytes[i + 5]! | 0x20) === 115 ? i + 6 : i + 5;
  return after >= bytes.length || !NAME_BYTE[bytes[after]!];
}

/** How many digits start at `at`. */
function digitsAt(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i < bytes.length && isDigit(bytes[i]!)) i++;
  return i - at;
}

const LATEST = encoder.encode('latest');

/**
 * Where a version written after a name ends (`-2024-05-13`, `-20241022`, `-0613`, `-001`,
 * `-latest`, a Bedrock `-v2:0` after any of them), starting at `at` (the `-`); -1 when none is.
 */
function versionEnd(bytes: Uint8Array, at: number): number {
  const from = at + 1;
  const digits = digitsAt(bytes, from);
  let end = -1;
  if (
    digits === 4 &&
    bytes[from + 4] === DASH &&
    digitsAt(bytes, from + 5) === 2 &&
    bytes[from + 7] === DASH &&
    digitsAt(bytes, from + 8) === 2
  ) {
    end = from + 10;
  } else if (digits === 3 || digits === 4 || digits === 6 || digits === 8) {
    end = from + digits;
  } else if (LATEST.every((byte, k) => (bytes[from + k]! | 0x20) === byte)) {
    end = from + LATEST.length;
  }
  if (end < 0) return -1;
  // Bedrock's `-v1:0`, `-v2:0` after a date.
  if (bytes[end] === DASH && (bytes[end + 1] === 118 || bytes[end + 1] === 86)) {
    const version = digitsAt(bytes, end + 2);
    if (version > 0) {
      let bedrock = end + 2 + version;
      if (bytes[bedrock] === COLON && digitsAt(bytes, bedrock + 1) > 0)
        bedrock += 1 + digitsAt(bytes, bedrock + 1);
      if (endsToken(bytes, bedrock)) return bedrock;
    }
  }
  return endsToken(bytes, end) ? end : -1;
}

/** Whether a token may end at `end`: no token character, nor a `.` joined to a digit, follows. */
function endsToken(bytes: Uint8Array, end: number): boolean {
  if (end >= bytes.length) return true;
  const after = bytes[end]!;
  if (TOKEN_BYTE[after] === 1) return false;
  return !(after === DOT && end + 1 < bytes.length && isDigit(bytes[end + 1]!));
}

/** Where a variant written after a name ends (`:free`, `:beta`, `:8b`), from its `:` at `at`; -1. */
function variantEnd(bytes: Uint8Array, at: number): number {
  let i = at + 1;
  if (!ALPHANUMERIC[bytes[i]!]) return -1;
  while (i < bytes.length && (TOKEN_BYTE[bytes[i]!] === 1 || bytes[i] === DOT)) i++;
  while (bytes[i - 1] === DOT) i--;
  // `a:b:c` and `a:b/c` are something else: a time, a path, an address.
  const after = bytes[i];
  if (after === COLON || after === SLASH || (after === DOT && ALPHANUMERIC[bytes[i + 1]!])) return -1;
  return i;
}

/**
 * Where a name found ending at `end` really ends: past a version or variant written after it, or
 * -1 when none is (the name ends at `end`, or not at all if a token character follows it).
 */
export function suffixEnd(bytes: Uint8Array, end: number): number {
  const after = bytes[end];
  if (after === DASH) return versionEnd(bytes, end);
  if (after === COLON) return variantEnd(bytes, end);
  return -1;
}

/** The version or variant in a name's suffix (`-2024-05-13`, `:free`), as reported. */
export function describeSuffix(suffix: string): { version: string } | { variant: string } {
  return suffix.startsWith(':') ? { variant: suffix.slice(1).toLowerCase() } : { version: suffix.slice(1) };
}
