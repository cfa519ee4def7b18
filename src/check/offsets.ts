/** Offsets in a text: UTF-8 bytes against UTF-16 code units, and lines and columns. */

/**
 * A monotone map between UTF-8 byte offsets and UTF-16 code-unit offsets of one text: each call's
 * offset at least the last's. A 4-byte character is two code units.
 */
export function unitsOf(bytes: Uint8Array): (byteOffset: number) => number {
  let at = 0;
  let units = 0;
  return (offset) => {
    for (; at < offset; at++) {
      const byte = bytes[at]!;
      if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
    }
    return units;
  };
}

export function bytesOf(bytes: Uint8Array): (unitOffset: number) => number {
  let at = 0;
  let units = 0;
  return (offset) => {
    while (units < offset && at < bytes.length) {
      const byte = bytes[at]!;
      at += byte < 0x80 ? 1 : byte < 0xe0 ? 2 : byte < 0xf0 ? 3 : 4;
      units += byte >= 0xf0 ? 2 : 1;
    }
    return at;
  };
}

/**
 * 1-based line and column (UTF-16 code units, as editors and SARIF count them) of each byte offset
 * of a UTF-8 text; `offsets` ascending. One pass, as `locate`.
 */
export function locateBytes(
  bytes: Uint8Array,
  offsets: readonly number[],
): { line: number; column: number }[] {
  const places: { line: number; column: number }[] = [];
  let line = 1;
  let newline = bytes.indexOf(10);
  let at = 0;
  let column = 1;
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      at = newline + 1;
      column = 1;
      newline = bytes.indexOf(10, at);
    }
    for (; at < offset; at++) {
      const byte = bytes[at]!;
      if ((byte & 0xc0) !== 0x80) column += byte >= 0xf0 ? 2 : 1;
    }
    places.push({ line, column });
  }
  return places;
}

/**
 * 1-based line and column (UTF-16 code units) of each offset; `offsets` ascending. One pass over the
 * text: the next line break is looked for once, not once per offset (which, on a 50 MB line without
 * one, cost 50 MB per reference).
 */
export function locate(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const places: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let newline = text.indexOf('\n');
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      lineStart = newline + 1;
      newline = text.indexOf('\n', lineStart);
    }
    places.push({ line, column: offset - lineStart + 1 });
  }
  return places;
}
