/**
 * Text from upstream (titles, error bodies, socket messages) made safe for where it is shown. A
 * hostile or broken service must not clear a user's screen, set a window title, plant an OSC 8 link,
 * reverse a line with a bidirectional override, or forge extra lines in a rendering a model reads.
 * Pure; the structured results keep the service's values exactly.
 */

/**
 * Escape sequences, as terminals parse them: CSI (ESC [ or the 8-bit U+009B) up to its final byte;
 * OSC, DCS, SOS, PM and APC up to their terminator (BEL, ESC \ or U+009C), or the end of the text
 * when unterminated; any other two-byte ESC sequence; a lone ESC.
 */
const ESCAPE_SEQUENCE =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)|\x1b[ -~]?/g;

/**
 * What is left to remove once sequences are gone: C0 controls but tab and newline, DEL, C1
 * controls, and the invisible bidirectional marks, embeddings, overrides and isolates (U+061C,
 * U+200E–F, U+202A–E, U+2066–9) that reorder what a reader sees.
 */
const UNSAFE_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Line breaks of every kind, Unicode's own included: in a one-line field each would forge a line. */
const LINE_BREAKS = /[\t\n\v\f\r\x85\u2028\u2029]+/g;

/** Anything oneLine would change: every control, line break and bidi character (ESC included). */
const NEEDS_ONE_LINE_WORK = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Anything terminalSafe would change: the same, but for tab and newline, which it keeps. */
const NEEDS_TERMINAL_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Multi-line text (a message, a report) safe to print to a terminal: escape sequences and unsafe
 * characters removed, `\r\n` kept as `\n`, any other carriage return dropped (it would let a line
 * overwrite itself).
 */
export function terminalSafe(text: string): string {
  if (!NEEDS_TERMINAL_WORK.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(UNSAFE_CHARACTER, '');
}

/**
 * One upstream value inside a one-line rendering: terminal-safe, and every line break turned into a
 * space, so that a title holding `\n` cannot print a line of its own.
 */
export function oneLine(text: string): string {
  // Nearly every value is clean: one scan answers for them, instead of three replacements.
  if (!NEEDS_ONE_LINE_WORK.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(LINE_BREAKS, ' ').replace(UNSAFE_CHARACTER, '');
}

/**
 * Characters that JSON.stringify leaves raw but that a terminal or a line-based reader acts on:
 * DEL, C1 controls, bidirectional controls, and U+2028/U+2029 (line breaks to JavaScript before
 * ES2019 and to Python's `splitlines`). JSON.stringify itself escapes C0 controls.
 */
const JSON_UNSAFE = /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * Serialised JSON with those characters written as `\uXXXX` escapes. They can only occur inside
 * strings there, so the JSON stays valid and decodes to exactly the same values.
 */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
