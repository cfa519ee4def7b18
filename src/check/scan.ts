/**
 * The references under the given paths: the walker's files through the matcher, silenced lines left
 * out, each reference placed by line and column. What the references are found against is the
 * catalog; what is said about them comes after (findings.ts).
 */

import { locate, type ModelMatcher } from './matcher.js';
import { silencedLines } from './report.js';
import { type WalkCounts, type WalkOptions, walkFiles } from './walker.js';

/** A reference found in a file: a catalog model's, or a near miss (`modelId` null). */
export interface FoundReference {
  path: string;
  line: number;
  column: number;
  text: string;
  modelId: string | null;
  /** For a near miss: the catalog ids close to it. */
  suggestions: string[];
}

export interface ScanResult {
  references: FoundReference[];
  counts: WalkCounts;
  /** Repeats left out past a file's first MAX_LISTED_PER_FILE references (see below). */
  repeatsNotListed: number;
}

/**
 * A file lists at most this many references; past them, only a text and model the file has not
 * named yet is listed, and repeats are counted. A minified bundle naming one model 700,000 times
 * would otherwise fill the report, the memory and a CI log (measured: 1.4 GB for one 50 MB line),
 * while every finding, and so the verdict, is already there with the first occurrence.
 */
export const MAX_LISTED_PER_FILE = 1000;

/**
 * A copy of a piece of a file's text that does not keep the file alive: V8 makes a longer slice a
 * view into its parent string, so every reference kept would hold its whole file (measured: a
 * 200 MB tree peaked at 270 MB RSS).
 */
const detached = (piece: string) => Buffer.from(piece, 'utf8').toString('utf8');

/** Paths as the reports show them: forward slashes, whatever the platform. */
const shown = (path: string) => path.split('\\').join('/');

export async function scanPaths(
  paths: readonly string[],
  matcher: ModelMatcher,
  options: WalkOptions,
): Promise<ScanResult> {
  const counts: WalkCounts = { scanned: 0, tooLarge: 0, binary: 0, other: 0 };
  const references: FoundReference[] = [];
  let repeatsNotListed = 0;
  for await (const file of walkFiles(paths, options, counts)) {
    const found = matcher.references(file.text);
    const misses = matcher.nearMisses(file.text, found);
    const spans = [
      ...found.map((r) => ({
        start: r.start,
        end: r.end,
        modelId: r.modelId as string | null,
        suggestions: [] as string[],
      })),
      ...misses.map((m) => ({ start: m.start, end: m.end, modelId: null, suggestions: m.suggestions })),
    ].sort((a, b) => a.start - b.start);
    const places = locate(
      file.text,
      spans.map((span) => span.start),
    );
    const silenced = silencedLines(file.text);
    const named = new Set<string>();
    let listed = 0;
    spans.forEach((span, i) => {
      const { line, column } = places[i]!;
      if (silenced.has(line)) return;
      const key = `${span.modelId}\u0000${file.text.slice(span.start, span.end).toLowerCase()}`;
      if (listed >= MAX_LISTED_PER_FILE && named.has(key)) {
        repeatsNotListed++;
        return;
      }
      named.add(key);
      listed++;
      references.push({
        path: shown(file.path),
        line,
        column,
        text: detached(file.text.slice(span.start, span.end)),
        modelId: span.modelId,
        suggestions: span.suggestions,
      });
    });
  }
  return { references, counts, repeatsNotListed };
}
