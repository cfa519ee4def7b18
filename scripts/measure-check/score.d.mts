export interface Label {
  package: string;
  version?: string;
  file: string;
  line: number;
  token: string;
  label: 'reference' | 'not';
  reason?: string;
  /** A failing finding on this reference that a person would not accept (e.g. a variant's retirement on its base). */
  failing?: 'wrong';
}

export interface ReportedOccurrence {
  key: string;
  package: string;
  file: string;
  line: number;
  column: number;
  token: string;
  model: string | null;
  kinds: string[];
  failing: boolean;
}

export interface Ratio {
  hits: number;
  of: number;
  value: number | null;
}

export interface Score {
  labels: { total: number; references: number; not: number; findableReferences: number };
  reported: number;
  precision: Ratio;
  recall: Ratio;
  failingRight: Ratio;
  falsePositives: (ReportedOccurrence & { reason?: string })[];
  wrongFailing: (ReportedOccurrence & { reason?: string })[];
  unlabelled: ReportedOccurrence[];
  misses: Label[];
}

export function occurrenceKey(pkg: string, file: string, line: number, token: string): string;
export function reportedOccurrences(pkg: string, report: unknown): ReportedOccurrence[];
export function score(
  labels: Label[],
  reported: ReportedOccurrence[],
  findable: (label: Label) => boolean,
): Score;
