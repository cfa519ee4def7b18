/**
 * A check report as each `--format` writes it: `text` for people, `json` (schema in docs/check.md),
 * `sarif` (2.1.0, for GitHub code scanning) and `github` (workflow commands that annotate a pull
 * request). Pure. The files' text and the service's are untrusted: every value goes out one-line
 * and terminal-safe, and JSON with the characters a terminal or a line reader acts on escaped.
 */

import { escapeJsonText, oneLine } from '../text/terminal.js';
import { VERSION } from '../version.js';
import { describeFinding, KIND_LABEL, limitNotes } from './finding-text.js';
import { FINDING_KINDS, type FindingKind } from './findings.js';
import type { CheckReport, Occurrence } from './report.js';
import { renderText, type TextOptions } from './text-report.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type CheckFormat = (typeof FORMATS)[number];

const RULES: Record<FindingKind, { name: string; description: string }> = {
  deprecated: {
    name: 'DeprecatedModel',
    description: 'A deprecation notice in the feed concerns this model.',
  },
  not_listed: {
    name: 'ModelNotListed',
    description: 'This looks like a catalog id, but the catalog does not list it (retired, or a typo).',
  },
  price_increase: {
    name: 'ModelPriceIncrease',
    description: 'The model costs more than it did on the date given.',
  },
  cheaper: {
    name: 'CheaperModel',
    description: 'A catalog model with at least the same context has a lower input price.',
  },
};

/** References per part of the JSON document: a few hundred KB each. */
const JSON_PART_REFERENCES = 1000;

const jsonReference = (o: Occurrence) => ({
  path: o.path,
  line: o.line,
  column: o.column,
  text: o.text,
  model: o.modelId,
  ...(o.version !== undefined && { version: o.version }),
  ...(o.variant !== undefined && { variant: o.variant }),
  findings: o.findings,
});

/**
 * The JSON document, `JSON.stringify(document, null, 2)` to the byte, in parts of
 * JSON_PART_REFERENCES references, each made as it is asked for: written to a file (or any stdout
 * that takes writes as they come), a large tree's report then never exists whole, as a string and
 * as the bytes written from it, at the run's peak, and is made as fast as the one string. A part
 * never ends inside a string, so each is escaped (and redacted) on its own.
 */
function* renderJsonParts(report: CheckReport): Generator<string> {
  const head = JSON.stringify(
    {
      version: 1,
      tool: { name: 'model-feed-mcp', version: VERSION },
      failOn: report.failOn,
      failed: report.failed,
      summary: report.summary,
      references: [],
    },
    null,
    2,
  );
  const { occurrences } = report;
  if (!occurrences.length) {
    yield escapeJsonText(head);
    return;
  }
  // `references` is the document's last member: JSON.stringify ends the document `[]\n}`.
  yield escapeJsonText(`${head.slice(0, -'[]\n}'.length)}[\n`);
  for (let start = 0; start < occurrences.length; start += JSON_PART_REFERENCES) {
    const end = Math.min(start + JSON_PART_REFERENCES, occurrences.length);
    // Stringified as the document's member, so at the document's indentation; its brackets cut off.
    const member = JSON.stringify({ references: occurrences.slice(start, end).map(jsonReference) }, null, 2);
    const entries = member.slice('{\n  "references": [\n'.length, -'\n  ]\n}'.length);
    yield escapeJsonText(`${entries}${end < occurrences.length ? ',' : ''}\n`);
  }
  yield '  ]\n}';
}

/**
 * A path as a SARIF artifact URI, relative to the folder `check` ran in. Report paths use `/` on
 * every platform (scan.ts); a `\` is part of a name, and is encoded as such.
 */
const artifactUri = (path: string) =>
  path
    .split('/')
    .filter((part) => part !== '.')
    .map(encodeURIComponent)
    .join('/');

/**
 * What SARIF's reader should know of the run beside its results: what it could not read (the run
 * fails with exit 2 for it unless allowed), models not price-checked, and what its bounds left out.
 */
function sarifNotifications(report: CheckReport): { level: string; message: { text: string } }[] {
  const s = report.summary;
  const texts = [
    ...s.unread.map(({ path, reason }) => ({
      level: 'error',
      text: `not read: ${oneLine(path)}: ${reason}`,
    })),
    ...(s.unreadable > s.unread.length
      ? [{ level: 'error', text: `not read: ${s.unreadable - s.unread.length} more files or folders` }]
      : []),
    ...s.noPriceHistory.map(({ model, reason }) => ({
      level: 'warning',
      text: `not price-checked: ${oneLine(model)} (the service has no price history for it: ${oneLine(reason)})`,
    })),
    ...limitNotes(report).map((text) => ({ level: 'warning', text })),
  ];
  return texts.map(({ level, text }) => ({ level, message: { text } }));
}

/** Occurrences per part of the SARIF document, as JSON_PART_REFERENCES for the JSON one. */
const SARIF_PART_OCCURRENCES = 1000;

function* renderSarifParts(report: CheckReport): Generator<string> {
  const level = (kind: FindingKind) =>
    report.failOn.includes(kind) ? 'error' : kind === 'cheaper' ? 'note' : 'warning';
  const toResults = (o: Occurrence) =>
    o.findings.map((finding) => ({
      ruleId: finding.kind,
      ruleIndex: FINDING_KINDS.indexOf(finding.kind),
      level: finding.baselined ? 'note' : level(finding.kind),
      baselineState: finding.baselined ? 'unchanged' : 'new',
      message: {
        text: `${oneLine(o.text)} → ${o.modelId ?? '(not in the catalog)'}: ${describeFinding(finding)}`,
      },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: artifactUri(o.path) },
            region: {
              startLine: o.line,
              startColumn: o.column,
              endLine: o.line,
              endColumn: o.column + o.text.length,
            },
          },
        },
      ],
    }));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'model-feed-mcp',
            version: VERSION,
            informationUri: 'https://www.npmjs.com/package/model-feed-mcp',
            rules: FINDING_KINDS.map((kind) => ({
              id: kind,
              name: RULES[kind].name,
              shortDescription: { text: RULES[kind].description },
              defaultConfiguration: { level: level(kind) },
            })),
          },
        },
        invocations: [
          {
            // What it could not read, it did not check.
            executionSuccessful: report.summary.unreadable === 0,
            toolExecutionNotifications: sarifNotifications(report),
          },
        ],
        results: [],
      },
    ],
  };
  const document = JSON.stringify(sarif, null, 2);
  const { occurrences } = report;
  if (!occurrences.length) {
    yield escapeJsonText(document);
    return;
  }
  // `results` is the run's last member: the document ends `"results": []` and the run's, the
  // list's and the document's closing brackets, at these indentations.
  const cut = document.length - '[]\n    }\n  ]\n}'.length;
  yield escapeJsonText(`${document.slice(0, cut)}[\n`);
  let first = true;
  for (let start = 0; start < occurrences.length; start += SARIF_PART_OCCURRENCES) {
    const part = occurrences.slice(start, start + SARIF_PART_OCCURRENCES).flatMap(toResults);
    if (!part.length) continue;
    // Stringified alone, then indented as the run's results are (8 spaces): JSON has no raw line
    // break inside a string, so every line break is one between values.
    const items = JSON.stringify(part, null, 2).slice(2, -2).replace(/^/gm, '      ');
    yield escapeJsonText(`${first ? '' : ',\n'}${items}`);
    first = false;
  }
  yield '\n      ]\n    }\n  ]\n}';
}

/** GitHub's workflow command escaping: of the message, and more of a property's value. */
const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

function renderGithub(report: CheckReport): string {
  const lines = report.occurrences.flatMap((o) =>
    o.findings.map((finding) => {
      const command = !finding.baselined && report.failOn.includes(finding.kind) ? 'error' : 'warning';
      const properties = [
        `file=${escapeProperty(oneLine(o.path))}`,
        `line=${o.line}`,
        `col=${o.column}`,
        `endColumn=${o.column + o.text.length}`,
        `title=${escapeProperty(`model ${KIND_LABEL[finding.kind]}`)}`,
      ].join(',');
      return `::${command} ${properties}::${escapeData(`${oneLine(o.text)} → ${o.modelId ?? '(not in the catalog)'}: ${describeFinding(finding)}`)}`;
    }),
  );
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/**
 * The report as `format` writes it, in parts made when asked for, to be written one after the other
 * and never joined: joining copies the document (a JSON one in parts, renderJsonParts).
 */
export function* renderReportParts(
  report: CheckReport,
  format: CheckFormat,
  text: TextOptions = { suggestCheaper: false },
): Generator<string> {
  switch (format) {
    case 'text':
      yield renderText(report, text);
      return;
    case 'json':
      yield* renderJsonParts(report);
      yield '\n';
      return;
    case 'sarif':
      yield* renderSarifParts(report);
      yield '\n';
      return;
    case 'github':
      yield renderGithub(report);
  }
}

export function renderReport(report: CheckReport, format: CheckFormat, text?: TextOptions): string {
  return [...renderReportParts(report, format, text)].join('');
}
