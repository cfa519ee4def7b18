import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/check/findings.js';
import { renderReport, renderReportParts } from '../../src/check/format.js';
import { baselineOf, buildReport, silencedLines, type Unbaselined } from '../../src/check/report.js';
import { escapeJsonText } from '../../src/text/terminal.js';
import { VERSION } from '../../src/version.js';
import { sarifValidator } from './sarif-schema.js';

const FOUND: Unbaselined[] = [
  {
    path: 'src/app.py',
    line: 3,
    column: 9,
    text: 'quill-mini-2',
    modelId: 'quillon/quill-mini-2',
    findings: [
      {
        kind: 'deprecated',
        date: '2026-11-01',
        title: 'Quill Mini 2 retires',
        source: 'https://example.com/n3',
        changeId: 'n3',
      },
      { kind: 'cheaper', modelId: 'acme/bolt', inputPrice: 0.5, contextLength: 128_000 },
    ],
  },
  {
    path: 'src/app.py',
    line: 7,
    column: 1,
    text: 'quillon/quill-mini-9',
    modelId: null,
    findings: [{ kind: 'not_listed', suggestions: ['quillon/quill-mini-2'] }],
  },
  {
    path: 'config/models.yaml',
    line: 1,
    column: 8,
    text: 'acme/bolt',
    modelId: 'acme/bolt',
    findings: [
      {
        kind: 'price_increase',
        since: '2026-10-01',
        before: { input: 0.4, output: 2.5 },
        after: { input: 0.5, output: 2 },
      },
    ],
  },
  {
    path: 'config/models.yaml',
    line: 2,
    column: 8,
    text: 'acme/bolt-pro',
    modelId: 'acme/bolt-pro',
    findings: [],
  },
];
const WALK = {
  scanned: 12,
  tooLarge: 1,
  binary: 2,
  other: 0,
  unreadable: 0,
  unread: [],
  repeatsNotListed: 0,
  referencesNotListed: 0,
  referencesNotListedFailing: 0,
  ignoreRulesLeftOut: 0,
  ignoreFilesCapped: [],
};
const FAIL_ON = ['deprecated', 'not_listed'] as const;

const report = (baseline = [] as ReturnType<typeof baselineOf>, failOn: readonly string[] = FAIL_ON) =>
  buildReport(FOUND, WALK, { failOn: failOn as never, baseline, notPriceChecked: [] });

describe('the report', () => {
  it('fails on a finding of a --fail-on kind, and only then', () => {
    expect(report().failed).toBe(true);
    expect(report([], ['price_increase']).failed).toBe(true);
    expect(report([], ['cheaper']).failed).toBe(true);
    expect(report([], []).failed).toBe(false);
    expect(report().summary.findings).toEqual({
      deprecated: 1,
      not_listed: 1,
      price_increase: 1,
      cheaper: 1,
    });
  });

  it('a baseline accepts the findings it holds, by file, text and kind, however lines move', () => {
    const baseline = baselineOf(report());
    expect(baseline).toContainEqual({
      path: 'src/app.py',
      text: 'quill-mini-2',
      kind: 'deprecated',
      count: 1,
    });
    const moved = FOUND.map((o) => ({ ...o, line: o.line + 40 }));
    const accepted = buildReport(moved, WALK, { failOn: FAIL_ON, baseline, notPriceChecked: [] });
    expect(accepted.failed).toBe(false);
    expect(accepted.summary.baselined).toBe(4);
    // A new occurrence of an accepted finding in the same file is new: the baseline counts.
    const again = buildReport([...moved, { ...FOUND[0]!, line: 99 }], WALK, {
      failOn: FAIL_ON,
      baseline,
      notPriceChecked: [],
    });
    expect(again.failed).toBe(true);
    expect(again.occurrences.at(-1)!.findings.map((f) => f.baselined)).toEqual([false, false]);
  });

  it('silences a line holding model-feed-ignore, and the line after it', () => {
    const text =
      'a = "gpt-4o"  # model-feed-ignore\n# model-feed-ignore\nb = "gpt-4o"\nc = "gpt-4o"\r\nd\n# model-feed-ignore';
    expect([...silencedLines(text)].sort()).toEqual([1, 2, 3, 6, 7]);
    expect(silencedLines('gpt-4o\ngpt-4o').size).toBe(0);
  });
});

describe('the formats', () => {
  it('text: the verdict and the summary first, then each model with its places, failing ones marked', () => {
    expect(renderReport(report(), 'text')).toBe(
      [
        'Failed: 2 failing findings (1 deprecated, 1 not listed) not in the baseline (--fail-on deprecated,not_listed).',
        '12 files scanned, 4 references to 3 catalog models, findings: 1 deprecated, 1 not listed, 1 price increase; skipped: 1 over --max-file-size, 2 binary.',
        '',
        '✖ quillon/quill-mini-2 fails: deprecated 2026-11-01: Quill Mini 2 retires (https://example.com/n3) · 1 reference',
        '    src/app.py:3:9  quill-mini-2',
        '',
        '✖ quillon/quill-mini-9 (not in the catalog) fails: not listed; did you mean quillon/quill-mini-2? · 1 reference',
        '    src/app.py:7:1  quillon/quill-mini-9',
        '',
        '• acme/bolt  price increase since 2026-10-01: input $0.4 → $0.5, output $2.5 → $2 per 1M tokens · 1 reference',
        '    config/models.yaml:1:8  acme/bolt',
        '',
        '  acme/bolt-pro · 1 reference',
        '    config/models.yaml:2:8  acme/bolt-pro',
        '',
      ].join('\n'),
    );
  });

  it('text: cheaper models only when asked for (--suggest cheaper); a model named twice is one entry', () => {
    const twice = buildReport([...FOUND, { ...FOUND[0]!, line: 9 }], WALK, {
      failOn: FAIL_ON,
      baseline: [],
      notPriceChecked: [],
    });
    const text = renderReport(twice, 'text', { suggestCheaper: true });
    expect(text).toContain('2 cheaper');
    expect(text).toContain(
      '✖ quillon/quill-mini-2 fails: deprecated 2026-11-01: Quill Mini 2 retires (https://example.com/n3); cheaper: acme/bolt at $0.5 per 1M input tokens, 128,000 context · 2 references\n    src/app.py:3:9  quill-mini-2\n    src/app.py:9:9  quill-mini-2\n',
    );
  });

  it('text: cheaper findings show without --suggest cheaper when they fail the run (--fail-on cheaper)', () => {
    const failing = buildReport(FOUND, WALK, { failOn: ['cheaper'], baseline: [], notPriceChecked: [] });
    const text = renderReport(failing, 'text');
    expect(text).toMatch(/^Failed: 1 failing finding \(1 cheaper\)/);
    expect(text).toContain('✖ quillon/quill-mini-2 fails: cheaper: acme/bolt');
  });

  it('text: no escape sequence or line break from a file or the service reaches the terminal', () => {
    const hostile = buildReport(
      [
        {
          ...FOUND[0]!,
          path: 'a\u001b[31m\nb.py',
          findings: [
            {
              ...(FOUND[0]!.findings[0] as Extract<Finding, { kind: 'deprecated' }>),
              title: 'x\u001b]0;pwned\u0007\ny',
            },
          ],
        },
      ],
      WALK,
      { failOn: FAIL_ON, baseline: [], notPriceChecked: [] },
    );
    const text = renderReport(hostile, 'text');
    expect(text).not.toMatch(/\u001b|\u0007/);
    expect(text.split('\n')[3]).toContain('x y');
  });

  it('json: one document, with the findings as data', () => {
    const document = JSON.parse(renderReport(report(), 'json'));
    expect(document).toMatchObject({ version: 1, failed: true, failOn: ['deprecated', 'not_listed'] });
    expect(document.references).toHaveLength(4);
    expect(document.references[1]).toEqual({
      path: 'src/app.py',
      line: 7,
      column: 1,
      text: 'quillon/quill-mini-9',
      model: null,
      findings: [{ kind: 'not_listed', suggestions: ['quillon/quill-mini-2'], baselined: false }],
    });
  });

  it('json: written in parts, byte for byte the one document JSON.stringify makes', () => {
    const whole = (r: ReturnType<typeof report>) =>
      `${escapeJsonText(
        JSON.stringify(
          {
            version: 1,
            tool: { name: 'model-feed-mcp', version: VERSION },
            failOn: r.failOn,
            failed: r.failed,
            summary: r.summary,
            references: r.occurrences.map((o) => ({
              path: o.path,
              line: o.line,
              column: o.column,
              text: o.text,
              model: o.modelId,
              findings: o.findings,
            })),
          },
          null,
          2,
        ),
      )}\n`;
    // Texts a part must not cut or escape twice: a line break, U+2028, quotes, a backslash.
    const odd = (i: number): Unbaselined => ({
      ...FOUND[i % FOUND.length]!,
      line: i + 1,
      text: `a\n"b"\u2028\\${i}`,
    });
    for (const count of [0, 1, 999, 1000, 1001, 2500]) {
      const many = buildReport(
        Array.from({ length: count }, (_, i) => odd(i)),
        WALK,
        {
          failOn: FAIL_ON as never,
          baseline: [],
          notPriceChecked: [],
        },
      );
      const parts = [...renderReportParts(many, 'json')];
      expect(parts.join(''), `${count} references`).toBe(whole(many));
      expect(parts.length).toBe(count ? Math.ceil(count / 1000) + 3 : 2);
    }
  });

  it('sarif: valid SARIF 2.1.0, a rule per kind, a region per result', () => {
    const validate = sarifValidator();
    const sarif = JSON.parse(renderReport(report(baselineOf(report()).slice(0, 1)), 'sarif'));
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const [run] = sarif.runs;
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([
      'deprecated',
      'not_listed',
      'price_increase',
      'cheaper',
    ]);
    expect(run.results).toHaveLength(4);
    expect(run.results[0]).toMatchObject({
      ruleId: 'deprecated',
      baselineState: 'unchanged',
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'src/app.py' },
            region: { startLine: 3, startColumn: 9, endColumn: 21 },
          },
        },
      ],
    });
    expect(run.results[2]).toMatchObject({ ruleId: 'not_listed', level: 'error', baselineState: 'new' });
  });

  it('github: an error per failing finding, a warning for the rest, escaped', () => {
    const lines = renderReport(report(), 'github').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    // A message escapes only %, CR and LF; a property also `:` and `,`.
    expect(lines[0]).toBe(
      '::error file=src/app.py,line=3,col=9,endColumn=21,title=model deprecated::quill-mini-2 → quillon/quill-mini-2: ' +
        'deprecated 2026-11-01: Quill Mini 2 retires (https://example.com/n3)',
    );
    expect(lines[1]).toMatch(/^::warning file=src\/app\.py,line=3,col=9,.*cheaper: acme\/bolt/);
    expect(lines[3]).toMatch(/^::warning file=config\/models\.yaml,line=1,col=8,/);
    const odd = buildReport([{ ...FOUND[1]!, path: 'we,ird:name%.py' }], WALK, {
      failOn: FAIL_ON,
      baseline: [],
      notPriceChecked: [],
    });
    expect(renderReport(odd, 'github')).toContain('file=we%2Cird%3Aname%25.py,');
  });
});
