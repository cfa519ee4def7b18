import { describe, expect, it } from 'vitest';
import { modelsDevFacts, parseModelsDev } from '../../src/public/models-dev.js';
import {
  announcesEnd,
  type DeprecationRecord,
  deprecationMatcher,
  MAX_RECORDS,
  parseVendorDeprecations,
} from '../../src/public/vendor-deprecations.js';
import { snapshot } from './catalog-fixtures.js';
import {
  deprecationRecord,
  deprecationsAnswer,
  modelsDevAnswer,
  nanoRecord,
  type RecordFacts,
} from './origin-fixtures.js';

function records(...facts: RecordFacts[]): readonly DeprecationRecord[] {
  const result = parseVendorDeprecations(deprecationsAnswer(facts.map(deprecationRecord)));
  if (!result.ok) throw new Error(result.reason);
  return result.list.records;
}

// Names and ids as the aggregator's catalog listed them on 2026-08-22.
const catalog = snapshot(0, [
  { id: 'openai/gpt-4.1-nano', name: 'OpenAI: GPT-4.1 Nano' },
  { id: 'openai/gpt-4.1-nano:batch', name: 'OpenAI: GPT-4.1 Nano (batch)' },
  { id: 'openai/gpt-4o', name: 'OpenAI: GPT-4o' },
  { id: 'openai/gpt-4o-2024-05-13', name: 'OpenAI: GPT-4o (2024-05-13)' },
  { id: 'anthropic/claude-sonnet-4', name: 'Anthropic: Claude Sonnet 4' },
  { id: 'anthropic/claude-haiku-4.5', name: 'Anthropic: Claude Haiku 4.5' },
  { id: 'mistralai/ministral-8b', name: 'Mistral: Ministral 8B' },
  { id: 'qwen/qwen3-8b', name: 'Qwen: Qwen3 8B' },
  { id: 'cohere/command-r-08-2024', name: 'Cohere: Command R (08-2024)' },
  { id: 'cohere/command-r-plus-08-2024', name: 'Cohere: Command R+ (08-2024)' },
  { id: 'google/gemini-2.5-flash', name: 'Google: Gemini 2.5 Flash' },
]);

describe('parseVendorDeprecations', () => {
  it('reads the dates, the recommended replacement and the cited vendor page', () => {
    expect(records(nanoRecord)).toEqual([
      {
        provider: 'openai',
        model: 'gpt-4.1-nano',
        aliases: ['gpt-4.1-nano-2025-04-14'],
        name: 'GPT-4.1 nano',
        deprecatedOn: '2026-04-22',
        shutdownOn: '2026-10-23',
        earliestShutdownOn: null,
        status: 'deprecated',
        replacement: 'openai/gpt-5.6-luna',
        sourceUrl: 'https://developers.openai.com/api/docs/deprecations',
      },
    ]);
  });

  it('keeps no community copy or plain-http page as the vendor source', () => {
    const [fromGithub, fromHttp] = records(
      { ...nanoRecord, source: 'https://github.com/techdevsynergy/llm-model-deprecation' },
      { ...nanoRecord, source: 'http://developers.openai.com/api/docs/deprecations' },
    );
    expect(fromGithub?.sourceUrl).toBeNull();
    expect(fromHttp?.sourceUrl).toBeNull();
  });

  it('refuses an answer without a models list, and skips records that do not fit', () => {
    expect(parseVendorDeprecations({ data: [] }).ok).toBe(false);
    expect(parseVendorDeprecations([]).ok).toBe(false);
    const good = deprecationRecord(nanoRecord);
    const result = parseVendorDeprecations(
      deprecationsAnswer([
        good,
        { ...good, provider: 7 },
        { ...good, model: 'x'.repeat(500) },
        'record',
        {
          ...good,
          model: 'odd',
          shutdown_on: '2026-02-30x',
          deprecated_on: 20260101,
          aliases: [1, '', 'ok', { deep: [[[[]]]] }],
          replacements: 'gpt-5',
          sources: [
            { url: 'javascript:alert(1)' },
            'https://x',
            { url: 'https://platform.openai.com/docs/deprecations' },
          ],
          name: 'n'.repeat(5_000),
        },
        ...Array.from({ length: MAX_RECORDS }, () => good),
      ]),
    );
    if (!result.ok) throw new Error(result.reason);
    const odd = result.list.records[1];
    expect(odd).toMatchObject({
      model: 'odd',
      shutdownOn: null,
      deprecatedOn: null,
      aliases: ['ok'],
      replacement: null,
      sourceUrl: 'https://platform.openai.com/docs/deprecations',
    });
    expect(odd?.name).toHaveLength(300);
    expect(result.list.records).toHaveLength(MAX_RECORDS);
    expect(result.list.skipped).toBe(3 + 2);
  });
});

describe('deprecationMatcher', () => {
  it('matches the vendor id once dots and dashes are one, in the namespace the provider stands for', () => {
    const [haiku, ministral] = records(
      {
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        name: 'Claude Haiku 4.5',
        earliest: '2026-10-15',
        status: 'active',
      },
      { provider: 'mistral', model: 'ministral-8b', name: 'Ministral 8B (old)', shutdown: '2025-12-31' },
    );
    expect(deprecationMatcher(catalog).match(haiku!)).toEqual(['anthropic/claude-haiku-4.5']);
    expect(deprecationMatcher(catalog).match(ministral!)).toEqual(['mistralai/ministral-8b']);
  });

  it('matches a dated vendor id through the ids models.dev gives, or through the name, but never strips a date', () => {
    const [sonnet, ministral, gpt4o, nano] = records(
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-20250514',
        name: 'Sonnet four',
        shutdown: '2026-06-15',
      },
      { provider: 'mistral', model: 'ministral-8b-2410', name: 'Ministral 8B', shutdown: '2025-12-31' },
      { provider: 'openai', model: 'gpt-4o-2024-05-13', name: 'GPT-4o (2024-05-13)', shutdown: '2026-10-23' },
      nanoRecord,
    );
    const facts = modelsDevFacts(
      (() => {
        const parsed = parseModelsDev(
          modelsDevAnswer({ anthropic: [{ id: 'claude-sonnet-4-20250514', release: '2025-05-22' }] }),
        );
        if (!parsed.ok) throw new Error(parsed.reason);
        return parsed.index;
      })(),
      catalog,
    );
    expect(deprecationMatcher(catalog).match(sonnet!)).toEqual([]);
    expect(deprecationMatcher(catalog, facts).match(sonnet!)).toEqual(['anthropic/claude-sonnet-4']);
    expect(deprecationMatcher(catalog).match(ministral!)).toEqual(['mistralai/ministral-8b']);
    expect(deprecationMatcher(catalog).match(gpt4o!)).toEqual(['openai/gpt-4o-2024-05-13']);
    // The variant `:batch` goes with its base.
    expect(deprecationMatcher(catalog).match(nano!)).toEqual(['openai/gpt-4.1-nano']);
  });

  it('keeps Command R+ apart from Command R, a provider of another namespace, and a platform provider out', () => {
    const [commandR, wrongVendor, vertex] = records(
      { provider: 'cohere', model: 'command-r-08-2024', name: 'Command R (08-2024)', shutdown: '2026-09-01' },
      { provider: 'xai', model: 'gpt-4.1-nano', name: 'GPT-4.1 nano', shutdown: '2026-09-01' },
      { provider: 'vertex', model: 'gemini-2.5-flash', name: 'Gemini 2.5 Flash', shutdown: '2026-10-16' },
    );
    expect(deprecationMatcher(catalog).match(commandR!)).toEqual(['cohere/command-r-08-2024']);
    expect(deprecationMatcher(catalog).match(wrongVendor!)).toEqual([]);
    expect(deprecationMatcher(catalog).match(vertex!)).toEqual([]);
  });

  it('files qwen under the alibaba provider', () => {
    const [qwen] = records({
      provider: 'alibaba',
      model: 'qwen3-8b',
      name: 'Qwen3 8B',
      shutdown: '2026-09-30',
    });
    expect(deprecationMatcher(catalog).match(qwen!)).toEqual(['qwen/qwen3-8b']);
  });
});

describe('announcesEnd', () => {
  it('counts a deprecation, a firm shutdown or a status; not a "not sooner than" date alone', () => {
    const [soft, firm, retired] = records(
      { provider: 'anthropic', model: 'a', name: 'a', earliest: '2026-10-15', status: 'active' },
      { provider: 'anthropic', model: 'b', name: 'b', shutdown: '2026-10-15', status: 'active' },
      { provider: 'anthropic', model: 'c', name: 'c', status: 'retired' },
    );
    expect([soft, firm, retired].map((record) => announcesEnd(record!))).toEqual([false, true, true]);
  });
});
