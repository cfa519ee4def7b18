/**
 * The text report, for people: the verdict and its counts first, then each model the code names
 * once, with what is said about it and where it is named. A failing model is marked (`✖ … fails:`),
 * one with only notes is not. Cheaper models are a suggestion asked for (`--suggest cheaper`), as
 * they would outnumber and bury the findings that fail; unless they fail the run. Pure.
 */

import { oneLine } from '../text/terminal.js';
import { describeFinding, KIND_LABEL, limitNotes } from './finding-text.js';
import { FINDING_KINDS, type FindingKind } from './findings.js';
import type { CheckReport, Occurrence, ReportedFinding } from './report.js';

export interface TextOptions {
  /** List a cheaper catalog model for each model named (JSON, SARIF and GitHub always do). */
  suggestCheaper: boolean;
}

/** Places listed under a model; past them, counted. The JSON report lists every one. */
export const MAX_PLACES_SHOWN = 20;

/** The references to one model (or one variant or version of it), or to one unlisted name. */
interface ModelGroup {
  label: string;
  occurrences: Occurrence[];
  /** The first finding of each kind, as the first occurrence with it has it. */
  findings: Map<FindingKind, ReportedFinding>;
  /** Kinds with a finding of a --fail-on kind not in the baseline, in some occurrence. */
  failing: Set<FindingKind>;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What a group is called: the model, and which variant or dated version of it the code names. */
function labelOf(o: Occurrence): { key: string; label: string } {
  if (o.modelId === null) {
    const text = oneLine(o.text);
    return { key: `\u0000${text.toLowerCase()}`, label: `${text} (not in the catalog)` };
  }
  if (o.variant !== undefined) {
    const label = `${o.modelId}:${oneLine(o.variant)}`;
    return { key: label, label };
  }
  if (o.version !== undefined) {
    return {
      key: `${o.modelId}\u0000${o.version}`,
      label: `${o.modelId}, dated version ${oneLine(o.version)}`,
    };
  }
  return { key: o.modelId, label: o.modelId };
}

function groupByModel(report: CheckReport, shown: (kind: FindingKind) => boolean): ModelGroup[] {
  const groups = new Map<string, ModelGroup>();
  for (const o of report.occurrences) {
    const { key, label } = labelOf(o);
    let group = groups.get(key);
    if (!group) {
      group = { label, occurrences: [], findings: new Map(), failing: new Set() };
      groups.set(key, group);
    }
    group.occurrences.push(o);
    for (const finding of o.findings) {
      if (!shown(finding.kind)) continue;
      if (!group.findings.has(finding.kind)) group.findings.set(finding.kind, finding);
      if (!finding.baselined && report.failOn.includes(finding.kind)) group.failing.add(finding.kind);
    }
  }
  // Failing models first, then those with notes, then the rest; each in the order the walk met them.
  const rank = (g: ModelGroup) => (g.failing.size ? 0 : g.findings.size ? 1 : 2);
  return [...groups.values()].sort((a, b) => rank(a) - rank(b));
}

function renderGroup(group: ModelGroup): string[] {
  const count = plural(group.occurrences.length, 'reference');
  const said = (kinds: (finding: ReportedFinding) => boolean) =>
    [...group.findings.values()]
      .filter(kinds)
      .map((finding) => describeFinding(finding, false))
      .join('; ');
  let head: string;
  if (group.failing.size) {
    const others = said((f) => !group.failing.has(f.kind));
    head = `✖ ${group.label} fails: ${said((f) => group.failing.has(f.kind))}${others ? `; ${others}` : ''} · ${count}`;
  } else if (group.findings.size) {
    head = `• ${group.label}  ${said(() => true)} · ${count}`;
  } else {
    head = `  ${group.label} · ${count}`;
  }
  const lines = [head];
  for (const o of group.occurrences.slice(0, MAX_PLACES_SHOWN)) {
    const baselined = o.findings.length > 0 && o.findings.every((f) => f.baselined);
    lines.push(
      `    ${oneLine(o.path)}:${o.line}:${o.column}  ${oneLine(o.text)}${baselined ? '  [baselined]' : ''}`,
    );
  }
  const more = group.occurrences.length - MAX_PLACES_SHOWN;
  if (more > 0) lines.push(`    and ${plural(more, 'more place')} (--format json lists every one)`);
  return lines;
}

/** The verdict, with the count of what fails: the first line. */
function verdict(report: CheckReport, failing: Record<FindingKind, number>): string {
  const kinds = report.failOn.length ? report.failOn.join(',') : 'none';
  if (report.failed) {
    const byKind = FINDING_KINDS.filter((kind) => failing[kind] > 0).map(
      (kind) => `${failing[kind]} ${KIND_LABEL[kind]}`,
    );
    const total = FINDING_KINDS.reduce((sum, kind) => sum + failing[kind], 0);
    const notListed = report.summary.referencesNotListedFailing;
    const counted = [
      total && `${plural(total, 'failing finding')} (${byKind.join(', ')})`,
      notListed && `${plural(notListed, 'failing reference')} past the caps`,
    ].filter(Boolean);
    return `Failed: ${counted.join(' and ')} not in the baseline (--fail-on ${kinds}).`;
  }
  if (report.incomplete) return 'Not passed: check did not read all it was given (said below).';
  return `Passed: no finding of a --fail-on kind outside the baseline (--fail-on ${kinds}).`;
}

export function renderText(report: CheckReport, options: TextOptions): string {
  // A kind that fails the run is always shown: a verdict must name what failed it.
  const shown = (kind: FindingKind) =>
    kind !== 'cheaper' || options.suggestCheaper || report.failOn.includes(kind);
  const s = report.summary;
  const failing: Record<FindingKind, number> = {
    deprecated: 0,
    not_listed: 0,
    price_increase: 0,
    cheaper: 0,
  };
  for (const o of report.occurrences) {
    for (const f of o.findings) if (!f.baselined && report.failOn.includes(f.kind)) failing[f.kind]++;
  }
  const groups = groupByModel(report, shown);
  const models = new Set(report.occurrences.flatMap((o) => (o.modelId ? [o.modelId] : []))).size;
  const byKind = FINDING_KINDS.filter((kind) => shown(kind) && s.findings[kind] > 0).map(
    (kind) => `${s.findings[kind]} ${KIND_LABEL[kind]}`,
  );
  const skipped = [
    s.tooLarge && `${s.tooLarge} over --max-file-size`,
    s.binary && `${s.binary} binary`,
    s.other && `${s.other} not regular files`,
    s.unreadable && `${s.unreadable} unreadable`,
  ].filter(Boolean);
  const lines = [
    verdict(report, failing),
    `${plural(s.scanned, 'file')} scanned, ${plural(s.references, 'reference')} to ${plural(models, 'catalog model')}, ` +
      `findings: ${byKind.length ? byKind.join(', ') : 'none'}` +
      (s.baselined ? ` (${s.baselined} baselined)` : '') +
      (skipped.length ? `; skipped: ${skipped.join(', ')}` : '') +
      '.',
  ];
  if (s.repeatsNotListed) {
    lines.push(
      `${s.repeatsNotListed} repeated ${s.repeatsNotListed === 1 ? 'reference' : 'references'} past a file's first 1,000 not listed (each text and model is listed once).`,
    );
  }
  if (s.unreadable) {
    const more = s.unreadable - s.unread.length;
    lines.push(
      `Not read: ${s.unread.map(({ path, reason }) => `${oneLine(path)} (${reason})`).join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
    );
  }
  lines.push(...limitNotes(report));
  if (s.notPriceChecked.length) {
    lines.push(`Not price-checked (more than 50 models referenced): ${s.notPriceChecked.join(', ')}.`);
  }
  for (const { model, reason } of s.noPriceHistory) {
    lines.push(
      `Not price-checked: ${oneLine(model)} (the service has no price history for it: ${oneLine(reason)}).`,
    );
  }
  for (const group of groups) lines.push('', ...renderGroup(group));
  return `${lines.join('\n')}\n`;
}
