/**
 * The references under the given paths: the walker's files through the matcher, silenced lines left
 * out, each reference placed by line and column. What the references are found against is the
 * catalog; what is said about them comes after (findings.ts).
 */

import type { ModelMatcher } from './matcher.js';
import { scanFile } from './scan-file.js';
import { type WalkCounts, type WalkOptions, walkPaths } from './walker.js';

export { MAX_LISTED_PER_FILE } from './scan-file.js';

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
  /** Repeats left out past a file's first MAX_LISTED_PER_FILE references (scan-file.ts). */
  repeatsNotListed: number;
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
  let repeatsNotListed = 0;
  for await (const file of walkPaths(paths, options, counts)) {
    const outcome = scanFile(file.absolute, matcher, options.maxFileSize);
    counts[outcome.kind]++;
    if (outcome.kind !== 'scanned') continue;
    repeatsNotListed += outcome.repeats;
    const path = shown(file.path);
    for (const reference of outcome.references) references.push({ path, ...reference });
  }
  return { references, counts, repeatsNotListed };
}
