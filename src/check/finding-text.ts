/**
 * What each format says about a finding and about the run's bounds, in words: one place, so that
 * text, SARIF and GitHub annotations say the same. Pure.
 */

import { oneLine } from '../text/terminal.js';
import type { FindingKind } from './findings.js';
import type { CheckReport, ReportedFinding } from './report.js';

export const KIND_LABEL: Record<FindingKind, string> = {
  deprecated: 'deprecated',
  not_listed: 'not listed',
  price_increase: 'price increase',
  cheaper: 'cheaper',
};

const money = (value: number | null) => (value === null ? 'unknown' : `$${value}`);

/** What is said about a finding, in one line. */
export function describeFinding(finding: ReportedFinding, marked = true): string {
  const said = ((): string => {
    switch (finding.kind) {
      case 'deprecated':
        return `deprecated ${finding.date}: ${oneLine(finding.title)}${finding.source ? ` (${oneLine(finding.source)})` : ''}`;
      case 'not_listed':
        return `not listed${finding.suggestions.length ? `; did you mean ${finding.suggestions.join(', ')}?` : ''}`;
      case 'price_increase':
        return (
          `price increase since ${finding.since}: input ${money(finding.before.input)} → ${money(finding.after.input)}, ` +
          `output ${money(finding.before.output)} → ${money(finding.after.output)} per 1M tokens`
        );
      case 'cheaper':
        return `cheaper: ${finding.modelId} at $${finding.inputPrice} per 1M input tokens, ${finding.contextLength.toLocaleString('en-US')} context`;
    }
  })();
  return marked && finding.baselined ? `${said} [baselined]` : said;
}

/**
 * What the run left out by its bounds, in sentences: references past the caps (and whether their
 * findings fail the run), ignore rules left out. Each format says them (SARIF as notifications).
 */
export function limitNotes(report: CheckReport): string[] {
  const s = report.summary;
  const notes: string[] = [];
  if (s.referencesNotListed) {
    notes.push(
      `${s.referencesNotListed} ${s.referencesNotListed === 1 ? 'reference' : 'references'} past the caps (5,000 a file, 50,000 a run) not listed` +
        (s.referencesNotListedFailing
          ? `; ${s.referencesNotListedFailing} of them with a finding of a --fail-on kind, which fail the run (no baseline can accept what is not listed).`
          : '; none with a finding of a --fail-on kind.'),
    );
  }
  if (s.ignoreRulesLeftOut || s.ignoreFilesCapped.length) {
    notes.push(
      `Ignore rules not all used (a file over 1 MiB is not read; a rule over 4,096 characters, or past 10,000 in a file or 1,000 with wildcards, is left out): ${s.ignoreRulesLeftOut} ${s.ignoreRulesLeftOut === 1 ? 'rule' : 'rules'} left out, in ${s.ignoreFilesCapped.map(oneLine).join('; ')}. What they would ignore is scanned.`,
    );
  }
  return notes;
}
