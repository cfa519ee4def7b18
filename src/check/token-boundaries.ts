/**
 * Where a token begins and ends, judged by ASCII characters only: the same answer for a string and
 * for its UTF-8 bytes, since no byte of a multi-byte character is ASCII.
 */

/** ASCII letters, digits, `-` and `_`: a match next to one of these is part of a longer token. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 45 ||
    code === 95
  );
}

export const isDigit = (code: number) => code >= 48 && code <= 57;

/** `isTokenChar` by byte, for the automaton's loop. */
export const TOKEN_BYTE = Uint8Array.from({ length: 256 }, (_, byte) => (isTokenChar(byte) ? 1 : 0));

/**
 * Whether the units `start` to `end` stand as a whole token: the characters around them are neither
 * token characters nor a `.` that joins a digit to them (`gpt-4` in `gpt-4.1`). `unit(i)` is the
 * i-th code unit, of a string or of UTF-8 bytes alike: only ASCII decides.
 */
export function wholeToken(unit: (i: number) => number, length: number, start: number, end: number): boolean {
  if (start > 0) {
    const before = unit(start - 1);
    if (isTokenChar(before)) return false;
    if (before === 46 && isDigit(unit(start))) return false;
  }
  if (end < length) {
    const after = unit(end);
    if (isTokenChar(after)) return false;
    if (after === 46 && end + 1 < length && isDigit(unit(end + 1))) return false;
  }
  return true;
}

/** Whether `text.slice(start, end)` stands as a whole token (see `wholeToken`). */
export function isWholeToken(text: string, start: number, end: number): boolean {
  return wholeToken((i) => text.charCodeAt(i), text.length, start, end);
}
