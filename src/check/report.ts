/**
 * A scan's references, their findings, and what fails the build. Pure: the matcher's and the
 * findings' output in, one report out, which every format renders (format.ts).
 *
 * - A line holding `model-feed-ignore`, or following one that does, is silenced: its references
 *   are not reported at all.
 * - A baseline accepts findings by file, text found and kind, not by line, so that edits above
 *   them do not matter; it counts them, so that a second occurrence of an accepted finding in the
 *   same file is new. A baselined finding is reported as such and never fails.
 * - The build fails on any finding of a `--fail-on` kind that is not baselined.
 */

import type { Finding, FindingKind } from './findings.js';
import type { NoPriceHistory } from './service-facts.js';
import type { UnreadPath } from './unread.js';

/** One reference in one file, with what is said about its model. */
export interface Occurrence {
  path: string;
  line: number;
  column: number;
  /** The text found, as the file has it. */
  text: string;
  /** The catalog model it names; null for a near miss (`not_listed`). */
  modelId: string | null;
  /** A dated version of the model (`2024-05-13`), or a variant of it (`free`), as the text names. */
  version?: string;
  variant?: string;
  findings: ReportedFinding[];
}

export type ReportedFinding = Finding & { baselined: boolean };

export interface WalkSummary {
  scanned: number;
  tooLarge: number;
  binary: number;
  other: number;
  /** Paths given, folders and files that could not be read (unread.ts)… */
  unreadable: number;
  /** …the first of them named, with why. */
  unread: UnreadPath[];
  /** Repeated references past a file's first 1,000, counted but not listed (scan.ts). */
  repeatsNotListed: number;
  /** References past the caps (5,000 a file, 50,000 a run), counted but not listed (scan.ts)… */
  referencesNotListed: number;
  /** …of which this many have a finding of a `--fail-on` kind: they fail the run all the same. */
  referencesNotListedFailing: number;
  /** Ignore rules left out, too long or too many (ignore-rules.ts), and the first files with such. */
  ignoreRulesLeftOut: number;
  ignoreFilesCapped: string[];
}

export interface CheckReport {
  occurrences: Occurrence[];
  summary: WalkSummary & {
    references: number;
    /** Findings by kind, baselined ones included. */
    findings: Record<FindingKind, number>;
    baselined: number;
    /** Referenced models whose price history was not read (past the cap), by id. */
    notPriceChecked: string[];
    /** Referenced models whose price history the service did not give: not price-checked either. */
    noPriceHistory: NoPriceHistory[];
  };
  failOn: readonly FindingKind[];
  /** Whether a finding of a `failOn` kind is not baselined. */
  failed: boolean;
  /** The run fails anyway: it did not read all it was given, or found nothing (unread.ts). */
  incomplete?: boolean;
}

/** An accepted finding, as a baseline file holds it. */
export interface BaselineEntry {
  path: string;
  text: string;
  kind: FindingKind;
  /** How many such findings the file had when the baseline was written. */
  count: number;
}

export const SILENCING_MARK = 'model-feed-ignore';

/**
 * The lines (1-based) whose references are silenced: each line holding `model-feed-ignore`, and the
 * line after it. One pass over the text, whatever its shape: a 50 MB minified line costs no more
 * than its bytes (asking per reference for its line's text would cost bytes x references there).
 * The text as a string, or as UTF-8 bytes (the lines are the same).
 */
export function silencedLines(text: string | Buffer): Set<number> {
  const lines = new Set<number>();
  let line = 1;
  let newline = text.indexOf('\n');
  for (
    let at = text.indexOf(SILENCING_MARK);
    at !== -1;
    at = text.indexOf(SILENCING_MARK, at + SILENCING_MARK.length)
  ) {
    while (newline !== -1 && newline < at) {
      line++;
      newline = text.indexOf('\n', newline + 1);
    }
    lines.add(line).add(line + 1);
  }
  return lines;
}

const baselineKey = (path: string, text: string, kind: FindingKind) =>
  JSON.stringify([path, text.toLowerCase(), kind]);

export interface Unbaselined {
  path: string;
  text: string;
  modelId: string | null;
  version?: string;
  variant?: string;
  line: number;
  column: number;
  findings: Finding[];
}

/** The report: findings marked baselined while the baseline's counts last, and the verdict. */
export function buildReport(
  found: readonly Unbaselined[],
  walk: WalkSummary,
  options: {
    failOn: readonly FindingKind[];
    baseline: readonly BaselineEntry[];
    notPriceChecked: string[];
    noPriceHistory?: NoPriceHistory[];
  },
): CheckReport {
  const allowance = new Map<string, number>();
  for (const entry of options.baseline) {
    const key = baselineKey(entry.path, entry.text, entry.kind);
    allowance.set(key, (allowance.get(key) ?? 0) + entry.count);
  }
  const counts: Record<FindingKind, number> = { deprecated: 0, not_listed: 0, price_increase: 0, cheaper: 0 };
  let baselined = 0;
  // A reference past the caps is not listed, so no baseline can accept it: its finding fails.
  let failed = walk.referencesNotListedFailing > 0;
  const occurrences = found.map((occurrence) => ({
    ...occurrence,
    findings: occurrence.findings.map((finding): ReportedFinding => {
      counts[finding.kind]++;
      const key = baselineKey(occurrence.path, occurrence.text, finding.kind);
      const left = allowance.get(key) ?? 0;
      if (left > 0) {
        allowance.set(key, left - 1);
        baselined++;
        return { ...finding, baselined: true };
      }
      if (options.failOn.includes(finding.kind)) failed = true;
      return { ...finding, baselined: false };
    }),
  }));
  return {
    occurrences,
    summary: {
      ...walk,
      references: found.length,
      findings: counts,
      baselined,
      notPriceChecked: options.notPriceChecked,
      noPriceHistory: options.noPriceHistory ?? [],
    },
    failOn: options.failOn,
    failed,
  };
}

/** The baseline that accepts every finding of `report`: entries by file, text and kind, counted. */
export function baselineOf(report: CheckReport): BaselineEntry[] {
  const entries = new Map<string, BaselineEntry>();
  for (const occurrence of report.occurrences) {
    for (const finding of occurrence.findings) {
      const key = baselineKey(occurrence.path, occurrence.text, finding.kind);
      const held = entries.get(key);
      if (held) held.count++;
      else entries.set(key, { path: occurrence.path, text: occurrence.text, kind: finding.kind, count: 1 });
    }
  }
  return [...entries.values()];
}
