/**
 * `ModelMatcher.spans`: a file's references and near misses found on its UTF-8 bytes, with the
 * per-file cap applied as they are found. It must list exactly what check listed before the cap
 * moved into the matcher: every reference and near miss of the decoded text first, then the cap
 * (`listedBefore`, the former scan.ts).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CatalogNames, compileMatcher } from '../../src/check/matcher.js';
import { locate, locateBytes } from '../../src/check/offsets.js';
import { silencedLines } from '../../src/check/report.js';

const CATALOG: CatalogNames[] = [
  { id: 'openai/gpt-4o', name: 'GPT-4o' },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini' },
  { id: 'openai/gpt-4.1', name: 'GPT-4.1' },
  { id: 'openai/gpt-4', name: 'GPT-4' },
  { id: 'quillon/quill-mini-2', name: 'Quill Mini 2' },
  { id: 'quillon/quill-mini-2-preview', name: 'Quill Mini 2 Preview' },
  { id: 'z-ai/glm-5.1', name: 'GLM 5.1', huggingfaceId: 'zai-org/GLM-5.1' },
  { id: 'azure/gpt-4o', name: 'gpt-4o' },
  { id: 'uni/modèle-ü', name: 'Modèle Ü 😀' },
];
const matcher = compileMatcher(CATALOG);

type Listed = [line: number, column: number, text: string, modelId: string | null, suggestions: string[]];

/** What a file listed before: all references and near misses of the decoded text, then the cap. */
function listedBefore(text: string, limit: number): { listed: Listed[]; repeats: number } {
  const found = matcher.references(text);
  const spans = [
    ...found.map((r) => ({
      start: r.start,
      end: r.end,
      modelId: r.modelId as string | null,
      suggestions: [],
    })),
    ...matcher
      .nearMisses(text, found)
      .map((m) => ({ start: m.start, end: m.end, modelId: null, suggestions: m.suggestions })),
  ].sort((a, b) => a.start - b.start);
  const places = locate(
    text,
    spans.map((span) => span.start),
  );
  const silenced = silencedLines(text);
  const named = new Set<string>();
  const listed: Listed[] = [];
  let repeats = 0;
  spans.forEach((span, i) => {
    const { line, column } = places[i]!;
    if (silenced.has(line)) return;
    const key = `${span.modelId}\u0000${text.slice(span.start, span.end).toLowerCase()}`;
    if (listed.length >= limit && named.has(key)) {
      repeats++;
      return;
    }
    named.add(key);
    listed.push([line, column, text.slice(span.start, span.end), span.modelId, span.suggestions]);
  });
  return { listed, repeats };
}

/** The same through `spans`, on the text's bytes, as scan-file.ts does it. */
function listedBySpans(text: string, limit: number): { listed: Listed[]; repeats: number } {
  const bytes = Buffer.from(text, 'utf8');
  const lines = silencedLines(bytes);
  const lineOf = (offset: number) => locateBytes(bytes, [offset])[0]!.line;
  const { spans, repeats } = matcher.spans(bytes, {
    limit,
    silenced: lines.size ? (start) => lines.has(lineOf(start)) : undefined,
  });
  const places = locateBytes(
    bytes,
    spans.map((span) => span.start),
  );
  return {
    listed: spans.map((span, i) => [
      places[i]!.line,
      places[i]!.column,
      bytes.toString('utf8', span.start, span.end),
      span.modelId,
      span.suggestions,
    ]),
    repeats,
  };
}

describe('spans', () => {
  it('lists a line’s first 1,000 references, then only texts and models not listed yet; the rest are counted', () => {
    const text = `${'m("gpt-4o");'.repeat(5000)}m("GPT-4O");m("gpt-4o-mini");m("openai/gpt-4x");m("gpt-4o");`;
    const { listed, repeats } = listedBySpans(text, 1000);
    expect(listed).toHaveLength(1002);
    expect(listed.slice(-2).map(([, , found, model, suggestions]) => [found, model, suggestions])).toEqual([
      ['gpt-4o-mini', 'openai/gpt-4o-mini', []],
      ['openai/gpt-4x', null, ['openai/gpt-4', 'openai/gpt-4o', 'openai/gpt-4.1']],
    ]);
    // 4,000 of the first 5,000, `GPT-4O` (the same text, case aside) and the last one.
    expect(repeats).toBe(4002);
    expect({ listed, repeats }).toEqual(listedBefore(text, 1000));
  });

  it('counts, without listing, 70,000 repeats on one 5 MB line', () => {
    const chunk = 'var a={model:"openai/gpt-4o-mini",b:[1,2,3],c:"see openai/gpt-4x"};';
    const bytes = Buffer.from(chunk.repeat(Math.ceil((5 * 1024 * 1024) / chunk.length)));
    const count = bytes.length / chunk.length;
    const { spans, repeats } = matcher.spans(bytes, { limit: 1000 });
    // Two per chunk, a reference and a near miss: the first 1,000 listed, each other one counted.
    expect(spans).toHaveLength(1000);
    expect(repeats).toBe(2 * count - 1000);
  });

  it('leaves out silenced lines altogether, neither listed nor counted', () => {
    const text = 'gpt-4o gpt-4o\r\n// model-feed-ignore\r\ngpt-4o\ngpt-4o-mini gpt-4o\n';
    expect(listedBySpans(text, 1)).toEqual({
      listed: [
        [1, 1, 'gpt-4o', 'openai/gpt-4o', []],
        [4, 1, 'gpt-4o-mini', 'openai/gpt-4o-mini', []],
      ],
      repeats: 2,
    });
    expect(listedBySpans(text, 1)).toEqual(listedBefore(text, 1));
  });

  it('gives columns in UTF-16 code units after multi-byte characters', () => {
    // Only ASCII letters fold: `Modèle Ü` would not be this model's name, `modèle ü` is.
    const text = '😀é→ openai/gpt-4o «modèle ü 😀» uni/modèle-ü zai-org/GLM-5.1\n😀openai/gpt-4x';
    expect(listedBySpans(text, 1000).listed.map(([line, column, found]) => [line, column, found])).toEqual([
      [1, 6, 'openai/gpt-4o'],
      [1, 21, 'modèle ü 😀'],
      [1, 34, 'uni/modèle-ü'],
      [1, 47, 'zai-org/GLM-5.1'],
      [2, 3, 'openai/gpt-4x'],
    ]);
    expect(listedBySpans(text, 1000)).toEqual(listedBefore(text, 1000));
  });

  it('lists what was listed before, for any text and cap', () => {
    const pieces = [
      'gpt-4o',
      'GPT-4O',
      'openai/gpt-4o',
      'openai/gpt-4x',
      'openai/gpt-4o-2024-05-13',
      'gpt-4.1',
      'gpt-4',
      'quill mini 2',
      'quill-mini-2-preview',
      'zai-org/GLM-5.1',
      'uni/modèle-ü',
      'uni/modele-u',
      'Modèle Ü 😀',
      'https://example.com/openai/gpt-4x/docs',
      'a/b/c',
      'model-feed-ignore',
      '.',
      '.1',
      ':',
      '/',
      '-',
      '_',
      ' ',
      '\n',
      '\r\n',
      'é',
      '😀',
      'İ',
      '\ud800',
      'x',
      '9',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 100 }),
        fc.integer({ min: 0, max: 5 }),
        (parts, limit) => {
          const text = parts.join('');
          expect(listedBySpans(text, limit)).toEqual(listedBefore(text, limit));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
