/**
 * One file of the tree read and matched: what the main thread does for a small tree and each worker
 * thread does for a large one (pool.ts), file by file. Its outcome is plain data, the same from
 * either, so that the report cannot depend on which thread read a file.
 */

import type { DroppedSpans, ModelMatcher } from './matcher.js';
import { locateBytes } from './offsets.js';
import { readTextFile } from './read-file.js';
import { silencedLines } from './report.js';

/**
 * A file lists at most this many references; past them, only a text and model the file has not
 * named yet is listed, and repeats are counted. A minified bundle naming one model 700,000 times
 * would otherwise fill the report, the memory and a CI log (measured: 1.4 GB for one 50 MB line),
 * while every finding, and so the verdict, is already there with the first occurrence. The matcher
 * applies it as it goes (`ModelMatcher.spans`), so the repeats are never listed at all.
 */
export const MAX_LISTED_PER_FILE = 1000;
/**
 * A file lists at most this many references, new texts included: a 4 MiB file of distinct near
 * misses is 150,000 of them, hundreds of megabytes of report for that one file. Past it,
 * they are tallied (`dropped`), for the summary and the verdict.
 */
export const MAX_SPANS_PER_FILE = 5 * MAX_LISTED_PER_FILE;

/** A reference found in a file: a catalog model's, or a near miss (`modelId` null). */
export interface FileReference {
  line: number;
  column: number;
  text: string;
  modelId: string | null;
  /** For a near miss: the catalog ids close to it. */
  suggestions: string[];
  /** A version or variant written after the model's name (matcher.ts). */
  version?: string;
  variant?: string;
}

export type FileOutcome =
  | {
      kind: 'scanned';
      /** The file's size in bytes. */
      bytes: number;
      references: FileReference[];
      /** Repeats left out past the file's first MAX_LISTED_PER_FILE references. */
      repeats: number;
      /** References past MAX_SPANS_PER_FILE, not listed. */
      dropped: DroppedSpans;
    }
  | { kind: 'tooLarge' | 'binary' | 'other' }
  | { kind: 'unreadable'; code: string };

/** Whether a byte offset is on a silenced line: asked in ascending order, one pass over the text. */
function silencer(bytes: Buffer): ((offset: number) => boolean) | undefined {
  const lines = silencedLines(bytes);
  if (!lines.size) return undefined;
  let line = 1;
  let newline = bytes.indexOf(10);
  return (offset) => {
    while (newline !== -1 && newline < offset) {
      line++;
      newline = bytes.indexOf(10, newline + 1);
    }
    return lines.has(line);
  };
}

/**
 * `within`: the real path of the tree the file was found in (read-file.ts). `listAtMost`: what is
 * left of the run's cap (scan.ts), so that past it a file's references are only tallied.
 */
export function scanFile(
  path: string,
  matcher: ModelMatcher,
  maxFileSize: number,
  within?: string,
  listAtMost = MAX_SPANS_PER_FILE,
): FileOutcome {
  const read = readTextFile(path, maxFileSize, within);
  if ('skipped' in read)
    return read.skipped === 'unreadable' ? { kind: 'unreadable', code: read.code } : { kind: read.skipped };
  let { bytes } = read;
  const size = bytes.length;
  // Bytes that are not UTF-8 are read as decoding reads them (each bad sequence a U+FFFD), so that
  // the matcher sees the characters, and gives the columns, that a decoded string would have.
  if (!process.getBuiltinModule('node:buffer').isUtf8(bytes)) bytes = Buffer.from(bytes.toString('utf8'));
  const { spans, repeats, dropped } = matcher.spans(bytes, {
    limit: MAX_LISTED_PER_FILE,
    hardLimit: Math.min(MAX_SPANS_PER_FILE, listAtMost),
    silenced: silencer(bytes),
  });
  const places = locateBytes(
    bytes,
    spans.map((span) => span.start),
  );
  const references = spans.map((span, i) => ({
    ...places[i]!,
    // A string of its own, not a view into the file (there is no decoded file to keep alive).
    text: bytes.toString('utf8', span.start, span.end),
    modelId: span.modelId,
    suggestions: span.suggestions,
    ...(span.version !== undefined && { version: span.version }),
    ...(span.variant !== undefined && { variant: span.variant }),
  }));
  return { kind: 'scanned', bytes: size, references, repeats, dropped };
}
