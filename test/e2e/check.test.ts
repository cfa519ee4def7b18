/**
 * `check` as CI runs it: the built CLI over a fixture tree, against the sandbox on a port of its
 * own. What it reports in each format, its exit code for each --fail-on, the baseline, and what it
 * asked the service.
 */

import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/sandbox/dataset.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { sarifValidator } from '../check/sarif-schema.js';
import { tempFolder } from '../support/temp.js';
import { run, scrubbedEnv } from './harness.js';

/** The fixture: references of each kind, one silenced, one in an ignored folder, one binary file. */
const TREE: Record<string, string> = {
  '.gitignore': 'ignored/\n',
  'ignored/old.py': 'MODEL = "mistralai/devstral-2512"\n',
  'src/app.py': [
    'import openai',
    'MODEL = "mistralai/devstral-2512"',
    'FALLBACK = "gpt-4o-mini"',
    'LEGACY = "openai/gpt-4o-transcribe"',
    'OK = "z-ai/glm-5.1"  # model-feed-ignore',
    '',
  ].join('\r\n'),
  'config/models.yaml': 'primary: z-ai/glm-5.1\nnotes: see gpt-4.5 and quill-mini-2-preview\n',
};

/** [path, line, column, text, model, finding kinds], as the fixture must be reported. */
const EXPECTED = [
  ['config/models.yaml', 1, 10, 'z-ai/glm-5.1', 'z-ai/glm-5.1', ['price_increase', 'cheaper']],
  ['src/app.py', 2, 10, 'mistralai/devstral-2512', 'mistralai/devstral-2512', ['deprecated', 'cheaper']],
  ['src/app.py', 3, 13, 'gpt-4o-mini', 'openai/gpt-4o-mini', ['cheaper']],
  ['src/app.py', 4, 11, 'openai/gpt-4o-transcribe', null, ['not_listed']],
];

let sandbox: Sandbox;
let tree: string;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  tree = tempFolder('mf-check-tree-');
  for (const [path, content] of Object.entries(TREE)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), content);
  }
  writeFileSync(join(tree, 'src/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  // One cache folder per test: each starts with nothing cached.
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
  sandbox.clearRequests();
});

const check = (args: string[]) => run(['check', '--since', '2026-06-01', ...args], env, { cwd: tree });

interface JsonReport {
  failed: boolean;
  summary: { scanned: number; binary: number; references: number; findings: Record<string, number> };
  references: {
    path: string;
    line: number;
    column: number;
    text: string;
    model: string | null;
    findings: { kind: string; baselined: boolean }[];
  }[];
}

describe('check', () => {
  it('json: the fixture exactly; the silenced line, the ignored folder and the binary file are left out', async () => {
    const result = await check(['--format', 'json']);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(
      report.references.map((r) => [
        r.path,
        r.line,
        r.column,
        r.text,
        r.model,
        r.findings.map((f) => f.kind),
      ]),
    ).toEqual(EXPECTED);
    expect(report.summary).toMatchObject({
      scanned: 3,
      binary: 1,
      references: 4,
      findings: { deprecated: 1, not_listed: 1, price_increase: 1, cheaper: 3 },
    });
    const glm = report.references[0]!.findings[0];
    expect(glm).toMatchObject({
      since: '2026-06-01',
      before: { input: 0.98, output: 3.08 },
      after: { input: 0.975, output: 4.3 },
    });
    const devstral = report.references[1]!.findings[0];
    expect(devstral).toMatchObject({
      kind: 'deprecated',
      date: '2026-06-03',
      title: 'Devstral 2 2512 flagged deprecated in models.dev',
    });
    expect(report.references[3]!.findings[0]).toMatchObject({ suggestions: ['openai/gpt-4o'] });
  });

  it('text: the verdict and the summary first, then each model with its places', async () => {
    const result = await check([]);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'Failed: 2 failing findings (1 deprecated, 1 not listed) not in the baseline (--fail-on deprecated,not_listed).',
      '3 files scanned, 4 references to 3 catalog models, findings: 1 deprecated, 1 not listed, 1 price increase; skipped: 1 binary.',
    ]);
    expect(result.stdout).toContain(
      '\n✖ openai/gpt-4o-transcribe (not in the catalog) fails: not listed; did you mean openai/gpt-4o? · 1 reference\n    src/app.py:4:11  openai/gpt-4o-transcribe\n',
    );
    expect(result.stdout).toMatch(
      /\n• z-ai\/glm-5\.1 {2}price increase since 2026-06-01: input \$0\.98 → \$0\.975, output \$3\.08 → \$4\.3 per 1M tokens · 1 reference\n {4}config\/models\.yaml:1:10 {2}z-ai\/glm-5\.1\n/,
    );
    expect(result.stdout).toContain(
      '\n  openai/gpt-4o-mini · 1 reference\n    src/app.py:3:13  gpt-4o-mini\n',
    );
  });

  it('sarif: valid SARIF 2.1.0, one result per finding, each with its region', async () => {
    const result = await check(['--format', 'sarif']);
    const sarif = JSON.parse(result.stdout);
    const validate = sarifValidator();
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const results = sarif.runs[0].results as {
      ruleId: string;
      level: string;
      locations: {
        physicalLocation: {
          artifactLocation: { uri: string };
          region: { startLine: number; startColumn: number };
        };
      }[];
    }[];
    expect(
      results.map((r) => [
        r.ruleId,
        r.level,
        r.locations[0]!.physicalLocation.artifactLocation.uri,
        r.locations[0]!.physicalLocation.region.startLine,
      ]),
    ).toEqual([
      ['price_increase', 'warning', 'config/models.yaml', 1],
      ['cheaper', 'note', 'config/models.yaml', 1],
      ['deprecated', 'error', 'src/app.py', 2],
      ['cheaper', 'note', 'src/app.py', 2],
      ['cheaper', 'note', 'src/app.py', 3],
      ['not_listed', 'error', 'src/app.py', 4],
    ]);
  });

  it('github: an error for each failing finding, a warning for the others', async () => {
    const result = await check(['--format', 'github']);
    const commands = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf('::', 2)));
    expect(commands).toEqual([
      '::warning file=config/models.yaml,line=1,col=10,endColumn=22,title=model price increase',
      '::warning file=config/models.yaml,line=1,col=10,endColumn=22,title=model cheaper',
      '::error file=src/app.py,line=2,col=10,endColumn=33,title=model deprecated',
      '::warning file=src/app.py,line=2,col=10,endColumn=33,title=model cheaper',
      '::warning file=src/app.py,line=3,col=13,endColumn=24,title=model cheaper',
      '::error file=src/app.py,line=4,col=11,endColumn=35,title=model not listed',
    ]);
  });

  it('--fail-on: the exit code follows the kinds named', async () => {
    for (const [failOn, code] of [
      ['none', 0],
      ['cheaper', 1],
      ['price_increase', 1],
      ['deprecated', 1],
      ['not_listed', 1],
    ] as const) {
      expect((await check(['--fail-on', failOn, '--format', 'json'])).code, failOn).toBe(code);
    }
    // Only the YAML file: a price increase and a cheaper model, neither deprecated nor unlisted.
    expect((await check(['config'])).code).toBe(0);
    expect((await check(['config', '--fail-on', 'price_increase'])).code).toBe(1);
    const bad = await check(['--fail-on', 'deprecated,typo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fail-on takes finding kinds separated by commas');
  });

  it('a baseline accepts the findings it holds; a new one still fails', async () => {
    const written = await check(['--write-baseline', 'model-feed-baseline.json']);
    expect(written.code).toBe(0);
    expect(written.stderr).toContain('Wrote 6 accepted findings to model-feed-baseline.json.');
    const baseline = join(tree, 'model-feed-baseline.json');
    expect(statSync(baseline).mode & 0o777).toBe(0o666 & ~process.umask());
    expect(readFileSync(baseline, 'utf8')).not.toContain(sandbox.key);

    // Lines moved: still accepted.
    writeFileSync(join(tree, 'src/app.py'), `# a new first line\n${TREE['src/app.py']}`);
    const accepted = await check(['--baseline', 'model-feed-baseline.json', '--format', 'json']);
    expect(accepted.code, accepted.stdout).toBe(0);
    const report = JSON.parse(accepted.stdout) as JsonReport;
    expect(report.references.every((r) => r.findings.every((f) => f.baselined))).toBe(true);

    writeFileSync(join(tree, 'src/new.py'), 'MODEL = "openai/gpt-4o-realtime"\n');
    const fresh = await check(['--baseline', 'model-feed-baseline.json']);
    expect(fresh.code).toBe(1);
    expect(fresh.stdout).toContain(
      '✖ openai/gpt-4o-realtime (not in the catalog) fails: not listed; did you mean openai/gpt-4o? · 1 reference\n    src/new.py:1:10  openai/gpt-4o-realtime\n',
    );
    expect(fresh.stdout).toContain('[baselined]');
  });

  it('asks the service for the catalog, the deprecation notices and one history per model, and a second run nothing', async () => {
    await check(['--format', 'json']);
    const asked = sandbox.requests
      .map((r) => `${r.path}${r.query.type ? `?type=${r.query.type}` : ''}`)
      .sort();
    expect(asked).toEqual([
      '/api/v1/changes?type=deprecation',
      '/api/v1/models',
      '/api/v1/models/mistralai_devstral-2512/history',
      '/api/v1/models/openai_gpt-4o-mini/history',
      '/api/v1/models/z-ai_glm-5.1/history',
    ]);
    sandbox.clearRequests();
    const again = await check(['--format', 'json']);
    expect(again.code).toBe(1);
    expect(sandbox.requests).toEqual([]);
  });

  it('without the service: exit 1 saying no cached catalog is young enough; with one, it checks and says how old', async () => {
    const down = await run(
      ['check', '--format', 'json'],
      { ...env, MODEL_FEED_BASE_URL: 'http://127.0.0.1:9' },
      { cwd: tree },
    );
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr).toContain('No cached catalog is young enough to check against instead');

    // A service of its own, closed after one run: the next run past the TTL answers from the copy.
    const own = await startSandbox({ tier: 'pro' });
    const ownEnv = { ...env, MODEL_FEED_API_KEY: own.key, MODEL_FEED_BASE_URL: own.url };
    const fresh = await run(['check', '--cache-ttl', '1', '--format', 'json'], ownEnv, { cwd: tree });
    expect(fresh.code, fresh.stderr).toBe(1);
    await own.close();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stale = await run(['check', '--cache-ttl', '1', '--format', 'json'], ownEnv, { cwd: tree });
    expect(stale.code, stale.stderr).toBe(1);
    expect(stale.stderr).toMatch(/checked against a copy of the catalog \d+ s old/);
    expect(JSON.parse(stale.stdout).references).toEqual(JSON.parse(fresh.stdout).references);
  });

  it('refuses bad flags with exit 2, naming them', async () => {
    writeFileSync(join(tree, 'old.json'), JSON.stringify({ version: 2, findings: [] }));
    writeFileSync(
      join(tree, 'odd.json'),
      JSON.stringify({ version: 1, findings: [{ path: 'a', kind: 'deprecated' }] }),
    );
    for (const [args, message] of [
      [['--since', 'yesterday'], '--since takes a date, e.g. 2026-10-01'],
      [['--max-file-size', '-1'], '--max-file-size takes a size in MiB'],
      [['--format', 'xml'], "argument 'xml' is invalid"],
      [['--baseline', 'missing.json'], '--baseline missing.json does not exist'],
      [
        ['--baseline', 'old.json'],
        '--baseline old.json is not a baseline of this version (version 2, not 1)',
      ],
      [
        ['--baseline', 'odd.json'],
        'is not a baseline of this version (finding 1 is not { path, text, kind, count })',
      ],
    ] as const) {
      const result = await check([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});

describe('watch --uses', () => {
  it("delivers only the changes that concern the fixture's models; the cursor moves past the others", async () => {
    const state = join(tempFolder('mf-check-uses-'), 'state.json');
    const watch = (args: string[]) =>
      run(
        ['watch', '--since', '0', '--once', '--state', state, '--uses', 'src', '--uses', 'config', ...args],
        env,
        {
          cwd: tree,
        },
      );
    const first = await watch([]);
    expect(first.code, first.stderr).toBe(0);
    const delivered = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { data: { eventType: string; model: { name: string } } })
      .map((e) => `${e.data.eventType} ${e.data.model.name}`);
    // The retirement of Devstral's free variant is not delivered: the code names the paid model.
    expect(delivered).toEqual([
      'price_change Devstral 2 2512',
      'deprecation Devstral 2 2512',
      'price_change GLM 5.1',
      'api_change GLM 5.1',
    ]);
    const total = buildDataset(loadBundledData()).events.length;
    expect(first.stderr).toContain(
      '--uses: 3 models named in 2 files (mistralai/devstral-2512, openai/gpt-4o-mini, z-ai/glm-5.1)',
    );
    expect(first.stderr).toContain(`--once: ${total} new changes, 4 of ${total} concern your code`);
    // Every change was passed, delivered or not: the next run starts after the newest.
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { cursor: number; delivered: number };
    expect(saved.delivered).toBe(4);
    const again = await watch([]);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('--once: 0 new changes, 0 of 0 concern your code');
  });
});
