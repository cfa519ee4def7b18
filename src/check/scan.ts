/**
 * The references under the given paths: the walker's files through the matcher, silenced lines left
 * out, each reference placed by line and column. What the references are found against is the
 * catalog; what is said about them comes after (findings.ts).
 */

import { locate, type ModelMatcher } from './matcher.js';
import { isSilenced } from './report.js';
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
}

/** Paths as the reports show them: forward slashes, whatever the platform. */
const shown = (path: string) => path.split('\\').join('/');

export async function scanPaths(
  paths: readonly string[],
  matcher: ModelMatcher,
  options: WalkOptions,
): Promise<ScanResult> {
  const counts: WalkCounts = { scanned: 0, tooLarge: 0, binary: 0, other: 0 };
  const references: FoundReference[] = [];
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
    ]
      .filter((span) => !isSilenced(file.text, span.start))
      .sort((a, b) => a.start - b.start);
    const places = locate(
      file.text,
      spans.map((span) => span.start),
    );
    spans.forEach((span, i) => {
      references.push({
        path: shown(file.path),
        line: places[i]!.line,
        column: places[i]!.column,
        text: file.text.slice(span.start, span.end),
        modelId: span.modelId,
        suggestions: span.suggestions,
      });
    });
  }
  return { references, counts };
}
