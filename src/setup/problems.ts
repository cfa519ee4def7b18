/** Why `setup` left a config file alone: it is not a file it reads, it does not parse, or it does not have the expected shape. */

/** A config file that does not parse: named with the line and column, and left untouched. */
export class ConfigParseError extends Error {
  override name = 'ConfigParseError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`line ${line}, column ${column}: ${detail}`);
  }
}

/** A config file that parses but where our entry cannot go (the top level is an array, say). */
export class ConfigShapeError extends Error {
  override name = 'ConfigShapeError';
}

/** A path that holds something setup will not read: a folder, a FIFO, a device, a huge file. */
export class UnusableFileError extends Error {
  override name = 'UnusableFileError';
}

/** 1-based line and column of a character offset, as editors count them. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}
