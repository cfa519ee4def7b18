// How right `check` is on labelled code: the pure part of `npm run measure:check`. It joins what
// `check --format json` reported with the labels by (package, file, line, token) and counts.
//
// An occurrence is a token on a line: two identical tokens on one line are one occurrence, since
// a person labels what the line means, not which column a tool started at.

/** The failing kinds when a report does not say (check's default `--fail-on`). */
const DEFAULT_FAIL_ON = ['deprecated', 'not_listed'];

/** The key a label and a reported reference share. */
export const occurrenceKey = (pkg, file, line, token) => `${pkg}\u0000${file}\u0000${line}\u0000${token}`;

/**
 * The reported occurrences of one package's `check --format json` document: one per (file, line,
 * token), with the findings of its references merged, and whether one of them fails the run.
 */
export function reportedOccurrences(pkg, report) {
  const failOn = new Set(report.failOn ?? DEFAULT_FAIL_ON);
  const byKey = new Map();
  for (const reference of report.references ?? []) {
    const path = reference.path.replace(/^\.\//, '');
    const key = occurrenceKey(pkg, path, reference.line, reference.text);
    const kinds = (reference.findings ?? []).map((finding) => finding.kind);
    const failing = (reference.findings ?? []).some((f) => failOn.has(f.kind) && !f.baselined);
    const known = byKey.get(key);
    if (known) {
      known.failing ||= failing;
      for (const kind of kinds) if (!known.kinds.includes(kind)) known.kinds.push(kind);
      continue;
    }
    byKey.set(key, {
      key,
      package: pkg,
      file: path,
      line: reference.line,
      column: reference.column,
      token: reference.text,
      model: reference.model ?? null,
      kinds,
      failing,
    });
  }
  return [...byKey.values()];
}

/** A ratio with its counts, `null` when nothing was counted. */
const share = (hits, of) => ({ hits, of, value: of === 0 ? null : hits / of });

/**
 * Precision over the reported occurrences that carry a label; recall over the labelled references
 * the catalog makes findable (`findable(label)`); the share of failing occurrences that are right:
 * a reference, and no label says its failing finding is wrong (`failing: "wrong"`, e.g. a variant's
 * retirement charged to its base model). Unlabelled reported occurrences are listed apart, never
 * guessed.
 */
export function score(labels, reported, findable) {
  const labelByKey = new Map(
    labels.map((label) => [occurrenceKey(label.package, label.file, label.line, label.token), label]),
  );
  const reportedKeys = new Set(reported.map((occurrence) => occurrence.key));
  const unlabelled = [];
  const falsePositives = [];
  const wrongFailing = [];
  let labelledReported = 0;
  let rightReported = 0;
  let labelledFailing = 0;
  let rightFailing = 0;
  for (const occurrence of reported) {
    const label = labelByKey.get(occurrence.key);
    if (!label) {
      unlabelled.push(occurrence);
      continue;
    }
    labelledReported++;
    const isReference = label.label === 'reference';
    if (isReference) rightReported++;
    else falsePositives.push({ ...occurrence, reason: label.reason });
    if (!occurrence.failing) continue;
    labelledFailing++;
    if (isReference && label.failing !== 'wrong') rightFailing++;
    else wrongFailing.push({ ...occurrence, reason: label.reason ?? label.failingReason });
  }
  const findableReferences = labels.filter((label) => label.label === 'reference' && findable(label));
  const misses = findableReferences.filter(
    (label) => !reportedKeys.has(occurrenceKey(label.package, label.file, label.line, label.token)),
  );
  return {
    labels: {
      total: labels.length,
      references: labels.filter((label) => label.label === 'reference').length,
      not: labels.filter((label) => label.label === 'not').length,
      findableReferences: findableReferences.length,
    },
    reported: reported.length,
    precision: share(rightReported, labelledReported),
    recall: share(findableReferences.length - misses.length, findableReferences.length),
    failingRight: share(rightFailing, labelledFailing),
    falsePositives,
    wrongFailing,
    unlabelled,
    misses,
  };
}
