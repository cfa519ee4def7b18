import { describe, expect, it } from 'vitest';
import { findableIn } from '../../scripts/measure-check/findable.mjs';
import { type Label, reportedOccurrences, score } from '../../scripts/measure-check/score.mjs';

/** A `check --format json` document, as much of it as the join reads. */
const report = (
  references: { path: string; line: number; text: string; model: string | null; kinds: string[] }[],
) => ({
  failOn: ['deprecated', 'not_listed'],
  references: references.map((reference) => ({
    ...reference,
    column: 1,
    findings: reference.kinds.map((kind) => ({ kind, baselined: false })),
  })),
});

const label = (
  file: string,
  line: number,
  token: string,
  verdict: 'reference' | 'not',
  extra = {},
): Label => ({
  package: 'pkg',
  version: '1.0.0',
  file,
  line,
  token,
  label: verdict,
  ...extra,
});

describe('measuring check against labels', () => {
  it('joins by package, file, line and token, and counts precision, recall and failing findings right', () => {
    const reported = reportedOccurrences(
      'pkg',
      report([
        { path: 'src/a.ts', line: 1, text: 'gpt-4o', model: 'openai/gpt-4o', kinds: ['cheaper'] },
        { path: 'src/a.ts', line: 2, text: 'openai/v1', model: null, kinds: ['not_listed'] },
        { path: 'src/a.ts', line: 3, text: 'auto', model: 'openrouter/auto', kinds: [] },
        { path: 'src/b.ts', line: 9, text: 'openai/gpt-9', model: null, kinds: ['not_listed'] },
        { path: 'src/b.ts', line: 10, text: 'gpt-4o-mini', model: 'openai/gpt-4o-mini', kinds: [] },
      ]),
    );
    const labels = [
      label('src/a.ts', 1, 'gpt-4o', 'reference'),
      label('src/a.ts', 2, 'openai/v1', 'not', { reason: 'a URL path' }),
      label('src/a.ts', 3, 'auto', 'not', { reason: 'tool choice' }),
      label('src/b.ts', 9, 'openai/gpt-9', 'reference'),
      label('src/c.ts', 4, 'gpt-4o-2024-05-13', 'reference'),
      label('src/c.ts', 5, 'claude-2', 'reference'),
    ];
    const result = score(labels, reported, (l) => l.token !== 'claude-2');

    expect(result.precision).toEqual({ hits: 2, of: 4, value: 0.5 });
    expect(result.recall).toEqual({ hits: 2, of: 3, value: 2 / 3 });
    expect(result.failingRight).toEqual({ hits: 1, of: 2, value: 0.5 });
    expect(result.falsePositives.map((o) => o.token)).toEqual(['openai/v1', 'auto']);
    expect(result.wrongFailing.map((o) => [o.token, o.reason])).toEqual([['openai/v1', 'a URL path']]);
    expect(result.misses.map((l) => l.token)).toEqual(['gpt-4o-2024-05-13']);
    expect(result.unlabelled.map((o) => o.token)).toEqual(['gpt-4o-mini']);
  });

  it('counts a token twice on one line once, with the findings of both merged', () => {
    const reported = reportedOccurrences(
      'pkg',
      report([
        { path: './a.md', line: 7, text: 'o3', model: 'openai/o3', kinds: ['cheaper'] },
        { path: './a.md', line: 7, text: 'o3', model: 'openai/o3', kinds: ['deprecated'] },
      ]),
    );
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ file: 'a.md', kinds: ['cheaper', 'deprecated'], failing: true });
  });

  it('counts a failing finding that a label marks wrong as wrong, though the token is a reference', () => {
    const reported = reportedOccurrences(
      'pkg',
      report([
        { path: 'a.ts', line: 1, text: 'qwen/qwen3-coder', model: 'qwen/qwen3-coder', kinds: ['deprecated'] },
      ]),
    );
    const result = score(
      [label('a.ts', 1, 'qwen/qwen3-coder', 'reference', { failing: 'wrong', reason: 'only :free retires' })],
      reported,
      () => true,
    );
    expect(result.precision.value).toBe(1);
    expect(result.failingRight).toEqual({ hits: 0, of: 1, value: 0 });
  });

  it('finds what a catalog makes findable: its ids and names, a version suffix, a vendor/name close to a listed id', () => {
    const findable = findableIn([
      { id: 'openai/gpt-4o' },
      { id: 'openai/gpt-4.1-mini:free' },
      { id: 'anthropic/claude-sonnet-4.6', hugging_face_id: null },
      { id: 'meta-llama/llama-3.1-8b-instruct', hugging_face_id: 'meta-llama/Meta-Llama-3.1-8B-Instruct' },
    ]);
    for (const token of [
      'gpt-4o',
      'OpenAI/GPT-4o',
      'gpt-4o-2024-05-13',
      'gpt-4.1-mini-2025-04-14',
      'gpt-4.1-mini:free',
      'gpt-4o-latest',
      'anthropic/claude-sonnet-4-6',
      'openai/gpt-4o-mini',
      'meta-llama/Meta-Llama-3.1-8B-Instruct',
    ]) {
      expect(findable(token), token).toBe(true);
    }
    for (const token of [
      'claude-2',
      'gpt-5',
      'mistral/gpt-4o-x',
      'openai/resources',
      'openai/gpt-4o/extra',
    ]) {
      expect(findable(token), token).toBe(false);
    }
  });
});
