import { describe, expect, it } from 'vitest';
import { type CatalogNames, compileMatcher, type ModelMatcher } from '../../src/check/matcher.js';
import { closeness as partedCloseness, partedName } from '../../src/check/near-miss.js';
import { locate } from '../../src/check/offsets.js';
import { isWholeToken } from '../../src/check/token-boundaries.js';

const CATALOG: CatalogNames[] = [
  { id: 'openai/gpt-4o', name: 'GPT-4o' },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini' },
  { id: 'openai/gpt-4.1', name: 'GPT-4.1' },
  { id: 'openai/gpt-4', name: 'GPT-4' },
  { id: 'anthropic/claude-3-5-sonnet-20241022', name: 'Claude 3.5 Sonnet' },
  { id: 'quillon/quill-mini-2', name: 'Quill Mini 2' },
  { id: 'quillon/quill-mini-2-preview', name: 'Quill Mini 2 Preview' },
  { id: 'quillon/quill-pro', name: 'Quill Pro' },
  {
    id: 'meta-llama/llama-3.1-8b-instruct',
    name: 'Llama 3.1 8B',
    huggingfaceId: 'meta-llama/Llama-3.1-8B-Instruct',
  },
  { id: 'z-ai/glm-5.1', name: 'GLM 5.1', huggingfaceId: 'zai-org/GLM-5.1' },
];

const matcher = compileMatcher(CATALOG);

/** What was found, as [text, model, kind]. */
function found(text: string, m: ModelMatcher = matcher) {
  return m.references(text).map((r) => [text.slice(r.start, r.end), r.modelId, r.kind]);
}

describe('references', () => {
  it('finds catalog ids, Hugging Face ids and bare names', () => {
    const text =
      'model: openai/gpt-4o\nrepo = "zai-org/GLM-5.1"\nclient.create(model="claude-3-5-sonnet-20241022")';
    expect(found(text)).toEqual([
      ['openai/gpt-4o', 'openai/gpt-4o', 'id'],
      ['zai-org/GLM-5.1', 'z-ai/glm-5.1', 'huggingface'],
      ['claude-3-5-sonnet-20241022', 'anthropic/claude-3-5-sonnet-20241022', 'name'],
    ]);
  });

  it('finds a model by its `name`, case-insensitively', () => {
    expect(found('We moved to quill mini 2 and GLM 5.1.')).toEqual([
      ['quill mini 2', 'quillon/quill-mini-2', 'name'],
      ['GLM 5.1', 'z-ai/glm-5.1', 'name'],
    ]);
    expect(found('OPENAI/GPT-4O Gpt-4O-Mini')).toEqual([
      ['OPENAI/GPT-4O', 'openai/gpt-4o', 'id'],
      ['Gpt-4O-Mini', 'openai/gpt-4o-mini', 'name'],
    ]);
  });

  it('lets the longest match win: one reference for a catalog id, none for a longer unlisted name', () => {
    expect(found('openai/gpt-4o')).toEqual([['openai/gpt-4o', 'openai/gpt-4o', 'id']]);
    expect(found('gpt-4.1 gpt-4o-mini gpt-4')).toEqual([
      ['gpt-4.1', 'openai/gpt-4.1', 'name'],
      ['gpt-4o-mini', 'openai/gpt-4o-mini', 'name'],
      ['gpt-4', 'openai/gpt-4', 'name'],
    ]);
    expect(found('quill-mini-2-preview')).toEqual([
      ['quill-mini-2-preview', 'quillon/quill-mini-2-preview', 'name'],
    ]);
    // Unlisted longer names are not the shorter model.
    expect(found('gpt-4.5 gpt-4o-nano quill-mini-2-lite gpt-4_turbo')).toEqual([]);
  });

  it('matches whole tokens only', () => {
    expect(found('xgpt-4o gpt-4ox 9gpt-4o _gpt-4o gpt-4o_ -gpt-4o gpt-4o- gpt-4.1.2 gpt-4.10')).toEqual([]);
    // A `.` joins a digit only: `v1.gpt-4` still names gpt-4.
    expect(found('v1.gpt-4')).toEqual([['gpt-4', 'openai/gpt-4', 'name']]);
    // Punctuation, quotes, slashes, a sentence's full stop and the ends of the text are boundaries.
    expect(found('"gpt-4o", (gpt-4), gpt-4o. `gpt-4o`')).toHaveLength(4);
    expect(found('gpt-4o')).toHaveLength(1);
  });

  it('reads CRLF text and non-ASCII characters around a match', () => {
    const text = 'a\r\nmodel=gpt-4o\r\n→gpt-4o←\r\n«GPT-4o»\r\nçgpt-4oé\r\n😀gpt-4o😀';
    const refs = matcher.references(text);
    expect(refs.map((r) => text.slice(r.start, r.end))).toEqual([
      'gpt-4o',
      'gpt-4o',
      'GPT-4o',
      'gpt-4o',
      'gpt-4o',
    ]);
    expect(
      locate(
        text,
        refs.map((r) => r.start),
      ),
    ).toEqual([
      { line: 2, column: 7 },
      { line: 3, column: 2 },
      { line: 4, column: 2 },
      { line: 5, column: 2 },
      { line: 6, column: 3 },
    ]);
  });

  it('keeps offsets exact where lower-casing would not (only ASCII folds)', () => {
    const text = 'İİİ gpt-4o';
    const [ref] = matcher.references(text);
    expect(text.slice(ref!.start, ref!.end)).toBe('gpt-4o');
  });

  it('prefers an id to a Hugging Face id to a bare name when two models share one', () => {
    const shared = compileMatcher([
      { id: 'azure/gpt-4o', name: 'gpt-4o' },
      { id: 'openai/gpt-4o', name: 'GPT-4o' },
    ]);
    // Both claim the bare name: the first in catalog order keeps it.
    expect(found('gpt-4o openai/gpt-4o', shared)).toEqual([
      ['gpt-4o', 'azure/gpt-4o', 'name'],
      ['openai/gpt-4o', 'openai/gpt-4o', 'id'],
    ]);
  });

  // How fast is the bench's to say (scripts/bench-check.mjs, its 50 MB line).
  it('reads a 5 MB minified line: every reference, each placed', () => {
    const chunk = 'var a={model:"gpt-4o-mini",b:[1,2,3],c:"lorem-ipsum-dolor"};';
    const text = chunk.repeat(Math.ceil((5 * 1024 * 1024) / chunk.length));
    const refs = matcher.references(text);
    expect(refs).toHaveLength(text.length / chunk.length);
    expect(refs.every((r) => r.modelId === 'openai/gpt-4o-mini')).toBe(true);
    // Every reference placed, in one pass: looking for the line break again per reference cost
    // 5 MB each on this line without one.
    const places = locate(
      text,
      refs.map((r) => r.start),
    );
    expect(places.at(-1)).toEqual({ line: 1, column: refs.at(-1)!.start + 1 });
  });
});

describe('near misses', () => {
  const misses = (text: string) => {
    const refs = matcher.references(text);
    return matcher.nearMisses(text, refs).map((m) => [text.slice(m.start, m.end), m.suggestions]);
  };

  it('reports an unlisted vendor/name token close to a listed id, with suggestions', () => {
    expect(misses('openai/gpt-4o-preview and openai/gpt4o and quillon/quill-mini-3.')).toEqual([
      ['openai/gpt-4o-preview', ['openai/gpt-4o']],
      ['openai/gpt4o', ['openai/gpt-4o', 'openai/gpt-4']],
      ['quillon/quill-mini-3', ['quillon/quill-mini-2']],
    ]);
  });

  it('gives at most three suggestions, closest first', () => {
    const [[, suggestions]] = misses('openai/gpt-4x') as [[string, string[]]];
    expect(suggestions).toHaveLength(3);
    expect(suggestions[0]).toBe('openai/gpt-4');
  });

  it('ignores listed ids, other vendors, paths and far names', () => {
    expect(
      misses('openai/gpt-4o meta-llama/Llama-3.1-8B-Instruct src/gpt-4x acme/gpt-4x openai/whisper-large'),
    ).toEqual([]);
  });

  it('stays linear on hostile text: a long run without a slash, a long run of slashes', () => {
    const started = performance.now();
    expect(matcher.nearMisses('a'.repeat(4_000_000), [])).toEqual([]);
    expect(matcher.nearMisses('ab/'.repeat(1_000_000), [])).toEqual([]);
    expect(matcher.nearMisses(`${'x'.repeat(1_000_000)}/openai/gpt-4x`, [])).toHaveLength(1);
    // About 100 ms when idle; a backtracking scan takes hours on the first string.
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it('finds the id inside a path, not inside a URL', () => {
    // The pairs of neighbouring segments are tried: models/openai (no such vendor), openai/gpt-4x.
    expect(misses('see https://example.com/openai/gpt-4x/docs and models/openai/gpt-4x/index.ts')).toEqual([
      ['openai/gpt-4x', ['openai/gpt-4', 'openai/gpt-4o', 'openai/gpt-4.1']],
    ]);
  });

  it('is no API version in a path: openai/v1, openai/v2beta', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text checked holds a template literal
    expect(misses('`${base}/publishers/openai/v1` and "/openai/v2beta/models" and openai/v1alpha1')).toEqual(
      [],
    );
    expect(
      misses('"https://api.groq.com/openai/v1" and "https://x.openai.azure.com/openai/gpt-4x/"'),
    ).toEqual([]);
  });

  it('is not reported where a reference already covers the text', () => {
    expect(misses('openai/gpt-4o:beta')).toEqual([]);
    expect(found('openai/gpt-4o:beta')).toEqual([['openai/gpt-4o:beta', 'openai/gpt-4o', 'id']]);
  });
});

describe('what the text around a name says', () => {
  const short = compileMatcher([
    { id: 'openai/o3', name: 'o3' },
    { id: 'deepseek/deepseek-r1', name: 'R1' },
    { id: 'openrouter/auto', name: 'Auto Router' },
    { id: 'openai/gpt-4o', name: 'GPT-4o' },
    { id: 'x-ai/grok-4', name: 'Grok 4' },
  ]);
  const models = (text: string) => short.references(text).map((r) => text.slice(r.start, r.end));

  it.each([
    ['a model key', 'const config = { model: "o3" };'],
    ['a quoted model key', '{"model_name": "o3"}'],
    ['a model variable', 'modelId = "o3"'],
    ['an env var', 'OPENAI_MODEL=o3'],
    ['a flag', 'run --model o3'],
    ['a flag with =', 'run --model=o3'],
    ['a flag as a list member', 'spawn(["--model", "o3"])'],
    ['a comparison', "if (modelId === 'o3') {"],
    ['a union of model ids', "type ChatModelId =\n  | 'gpt-4o'\n  | 'o3'"],
    ['a list under a model key', 'models: ["gpt-4o", "o3"]'],
    ['a vendor provider call', 'const m = openai("o3");'],
    ['a vendor provider method', "openai.chat('o3')"],
    ['a vendor before it', 'use deepseek/o3 here'.replace('deepseek', 'openai')],
    ['a model before it in a list', '"gpt-4o", "o3"'],
    ['a model before it in prose', 'like `gpt-4o` or `o3`'],
    ['a model before it in a bare list', 'models (gpt-4o, grok-4, o3, etc.)'],
    ['a short model before it, itself after a model word', 'reasoning models (o3, r1, etc.)'],
    ['an optional chain', 'this.model?.startsWith("o3")'],
    ['prose that says model after it', 'With o3 models and newer'],
  ])('takes a short name after %s', (_what, text) => {
    expect(models(text)).toContain(text.includes('openai/o3') ? 'openai/o3' : 'o3');
  });

  it.each([
    ['a string literal', 'R = "r1"'],
    ['another key', '{"optimize": "O3"}'],
    ['a tool choice', 'tool_choice: "auto"'],
    ['prose', 'the O3 level of optimisation'],
    ['another call', 'compile("o3")'],
    ['a list of other things', 'flags = ["-O2", "o3"]'],
    ['a word that only starts with model', 'o3 modelling'],
  ])('leaves out a short name after %s', (_what, text) => {
    expect(models(text)).toEqual([]);
  });

  it('takes a short name with a version: the version says model', () => {
    expect(models('x = "o3-2025-04-16"')).toEqual(['o3-2025-04-16']);
  });

  it('reads a version or variant after a name as part of the reference', () => {
    const refs = (text: string) =>
      short.references(text).map((r) => [text.slice(r.start, r.end), r.modelId, r.version, r.variant]);
    expect(refs('a = "gpt-4o-2024-08-06"; b = "openai/gpt-4o:free"; c = "grok-4-0709"')).toEqual([
      ['gpt-4o-2024-08-06', 'openai/gpt-4o', '2024-08-06', undefined],
      ['openai/gpt-4o:free', 'openai/gpt-4o', undefined, 'free'],
      ['grok-4-0709', 'x-ai/grok-4', '0709', undefined],
    ]);
    // Neither a version nor a variant: another name (not listed here), a time, a path.
    expect(refs('gpt-4o-mini gpt-4o-2024 gpt-4o:12:30 gpt-4o:a/b')).toEqual([
      ['gpt-4o-2024', 'openai/gpt-4o', '2024', undefined],
      ['gpt-4o', 'openai/gpt-4o', undefined, undefined],
      ['gpt-4o', 'openai/gpt-4o', undefined, undefined],
    ]);
  });

  it('takes the base of a variant listed without it for that variant', () => {
    const batch = compileMatcher([{ id: 'openai/gpt-5-codex:batch', name: 'GPT-5 Codex (batch)' }]);
    expect(found('model: "gpt-5-codex" or openai/gpt-5-codex', batch)).toEqual([
      ['gpt-5-codex', 'openai/gpt-5-codex:batch', 'name'],
      ['openai/gpt-5-codex', 'openai/gpt-5-codex:batch', 'id'],
    ]);
  });

  it('reads a 4 MB list of short names with no model around them: none, each list read back a bounded way', () => {
    // Read back to its start for each name, this list took 110 s; the bound is the test's timeout.
    const list = Buffer.from('"o3", '.repeat(700_000));
    expect(short.spans(list, { limit: 1000 }).spans).toEqual([]);
  }, 20_000);

  it('finds nothing inside a URL', () => {
    expect(models('see https://openrouter.ai/openai/gpt-4o and openai/gpt-4o')).toEqual(['openai/gpt-4o']);
  });
});

describe('the rules', () => {
  const closeness = (unlisted: string, listed: string) =>
    partedCloseness(partedName(unlisted), partedName(listed));

  it('closeness: two edits, or one `-` part (a date counts as one)', () => {
    expect(closeness('gpt-4x', 'gpt-4o')).toBe(1);
    expect(closeness('gtp-4o', 'gpt-4o')).toBe(2);
    expect(closeness('quill-mini-2-lite', 'quill-mini-2')).toBe(1);
    expect(closeness('gpt-4o-2024-05-13', 'gpt-4o')).toBe(1);
    expect(closeness('claude-3-5-sonnet', 'claude-3-5-sonnet-20241022')).toBe(1);
    expect(closeness('quill-max', 'quill-pro')).toBeUndefined();
    // A part added in the middle, and a part repeated, are one part too; two parts are not.
    expect(closeness('quill-turbo-mini-2', 'quill-mini-2')).toBe(1);
    expect(closeness('quill-mini-mini-2', 'quill-mini-2')).toBe(1);
    expect(closeness('quill-big-turbo-mini', 'quill-mini')).toBeUndefined();
    expect(closeness('quill-mini-2', 'quill-turbo-mini-2')).toBe(1);
  });

  it('isWholeToken: a `.` joins only a digit', () => {
    expect(isWholeToken('gpt-4.1', 0, 5)).toBe(false);
    expect(isWholeToken('gpt-4.', 0, 5)).toBe(true);
    expect(isWholeToken('v.gpt', 2, 5)).toBe(true);
    expect(isWholeToken('1.2', 2, 3)).toBe(false);
  });
});
