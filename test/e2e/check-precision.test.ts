/**
 * `check` on code shaped like real SDKs and apps, through the built CLI against the sandbox: what
 * is a model reference and what is not (URLs, API versions, short names without a model context),
 * dated versions of listed models, a variant's retirement against its base model, and the text
 * report's order and looks.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { run, scrubbedEnv } from './harness.js';

interface JsonReference {
  path: string;
  line: number;
  text: string;
  model: string | null;
  variant?: string;
  version?: string;
  findings: { kind: string; suggestions?: string[] }[];
}

let sandbox: Sandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());

/** A tree of `files` in a temp folder of its own. */
function treeOf(files: Record<string, string>): string {
  const tree = tempFolder('mf-check-precision-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), content);
  }
  return tree;
}

const check = (tree: string, args: string[] = []) =>
  run(['check', '--since', '2026-06-01', ...args], env, { cwd: tree });

async function jsonReferences(files: Record<string, string>): Promise<JsonReference[]> {
  const result = await check(treeOf(files), ['--format', 'json']);
  expect(result.stderr).not.toContain('Internal error');
  return (JSON.parse(result.stdout) as { references: JsonReference[] }).references;
}

describe('check: URLs and API versions are not models', () => {
  it('finds no reference, and no near miss, in a base URL or an API path', async () => {
    const references = await jsonReferences({
      'client.ts': [
        'const groq = new OpenAI({ baseURL: "https://api.groq.com/openai/v1" });',
        'const azure = `https://myres.openai.azure.com/openai/v1/`;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the file checked holds a template literal
        'const vertex = `${base}/publishers/openai/v1`;',
        'const beta = "/openai/v2beta/models";',
        'const model = "openai/gpt-4o";',
        '',
      ].join('\n'),
    });
    expect(references.map((r) => [r.line, r.text, r.model])).toEqual([[5, 'openai/gpt-4o', 'openai/gpt-4o']]);
  });
});

describe('check: a variant retired is not its base model retired', () => {
  it('fails the free variant the feed retires, not the paid model it names only in its title', async () => {
    const references = await jsonReferences({
      'app.py': [
        'MODEL = "qwen/qwen3-coder"',
        'FAST = "deepseek/deepseek-v4-flash"',
        'FREE = "qwen/qwen3-coder:free"',
        'FREE_FAST = "deepseek/deepseek-v4-flash:free"',
        '',
      ].join('\n'),
    });
    const deprecated = (r: JsonReference) => r.findings.some((f) => f.kind === 'deprecated');
    expect(references.map((r) => [r.text, r.model, r.variant ?? null, deprecated(r)])).toEqual([
      ['qwen/qwen3-coder', 'qwen/qwen3-coder', null, false],
      ['deepseek/deepseek-v4-flash', 'deepseek/deepseek-v4-flash', null, false],
      ['qwen/qwen3-coder:free', 'qwen/qwen3-coder', 'free', true],
      ['deepseek/deepseek-v4-flash:free', 'deepseek/deepseek-v4-flash', 'free', true],
    ]);
  });

  it('watch --uses delivers a variant retirement only to code that names the variant', async () => {
    const paid = treeOf({ 'app.py': 'MODEL = "qwen/qwen3-coder"\n' });
    const free = treeOf({ 'app.py': 'MODEL = "qwen/qwen3-coder:free"\n' });
    const delivered = async (tree: string) => {
      const state = join(tempFolder('mf-check-precision-state-'), 'state.json');
      const result = await run(
        ['watch', '--since', '0', '--once', '--state', state, '--uses', '.', '--type', 'deprecation'],
        env,
        { cwd: tree },
      );
      expect(result.code, result.stderr).toBe(0);
      return result.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { data: { title: string } }).data.title);
    };
    expect(await delivered(paid)).toEqual([]);
    expect(await delivered(free)).toEqual(['Qwen3 Coder free variant (qwen/qwen3-coder:free) retired']);
  });
});

describe('check: short names count only where the context says model', () => {
  it('takes o3 and r1 after a model key or parameter, not as any string literal', async () => {
    const references = await jsonReferences({
      'misc.ts': [
        'const request = { tool_choice: "auto", temperature: 0 };',
        'R = "r1"',
        'const flags = {"optimize": "O3"};',
        'const config = { model: "o3" };',
        'modelId = "r1"',
        'run(["--model", "o3"]);',
        'const fast = openai("o3");',
        '',
      ].join('\n'),
    });
    expect(references.map((r) => [r.line, r.text, r.model])).toEqual([
      [4, 'o3', 'openai/o3'],
      [5, 'r1', 'deepseek/deepseek-r1'],
      [6, 'o3', 'openai/o3'],
      [7, 'o3', 'openai/o3'],
    ]);
  });
});

describe('check: a dated version of a listed model', () => {
  it('is that model, with its version, not "not listed"', async () => {
    const references = await jsonReferences({
      'dated.py': [
        'A = "openai/gpt-4o-2024-05-13"',
        'B = "gpt-4o-2024-08-06"',
        'C = "claude-sonnet-4-20250514"',
        '',
      ].join('\n'),
    });
    expect(references.map((r) => [r.line, r.text, r.model, r.version])).toEqual([
      [1, 'openai/gpt-4o-2024-05-13', 'openai/gpt-4o', '2024-05-13'],
      [2, 'gpt-4o-2024-08-06', 'openai/gpt-4o', '2024-08-06'],
      [3, 'claude-sonnet-4-20250514', 'anthropic/claude-sonnet-4', '20250514'],
    ]);
    expect(references.flatMap((r) => r.findings.map((f) => f.kind))).not.toContain('not_listed');
  });
});

describe('check: the text report', () => {
  const files = {
    'src/app.py': ['MODEL = "mistralai/devstral-2512"', 'AGAIN = "mistralai/devstral-2512"', ''].join('\n'),
    'config/models.yaml': 'primary: z-ai/glm-5.1\nfallback: gpt-4o-mini\n',
  };

  it('says the verdict and its counts first, then each model once with its places; a failing one is marked', async () => {
    const result = await check(treeOf(files));
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^Failed: /);
    expect(lines[1]).toMatch(/^3 files scanned|^2 files scanned/);
    const devstral = lines.findIndex(
      (line) => line.includes('mistralai/devstral-2512') && line.includes('fails'),
    );
    expect(lines[devstral]).toMatch(/^✖ mistralai\/devstral-2512 fails: deprecated 2026-06-03/);
    expect(lines[devstral]).toContain('2 references');
    expect(lines[devstral + 1]).toContain('src/app.py:1:10');
    expect(lines[devstral + 2]).toContain('src/app.py:2:10');
    const glm = lines.find((line) => line.includes('z-ai/glm-5.1') && line.includes('price increase'));
    expect(glm).toBeDefined();
    expect(glm).not.toMatch(/^✖/);
    expect(glm).not.toContain('fails');
    // Cheaper models are a suggestion asked for, not a note on every model.
    expect(result.stdout).not.toContain('cheaper');
  });

  it('lists cheaper models with --suggest cheaper', async () => {
    const result = await check(treeOf(files), ['--suggest', 'cheaper']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/cheaper: \S+ at \$/);
    const json = await check(treeOf(files), ['--format', 'json']);
    // JSON keeps every finding, cheaper ones included, as before.
    expect(json.stdout).toContain('"kind": "cheaper"');
  });
});
