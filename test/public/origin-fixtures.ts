/**
 * Answers of the origins beside the aggregator's catalog, in their real shapes, written for these
 * tests. Facts carried over, with their source:
 * - models.dev `api.json`: as committed by symfony/models-dev (`models-dev.json` at 046b81a4,
 *   2026-06-13): the `anthropic` ids, release dates and open weights, the `openrouter` entries;
 * - modeldeprecations.dev `/api/v1/models.json`: the records in mnfst/modeldeprecations.dev
 *   (`models/<provider>/<model>.yaml`, 2026-08), its envelope as its build writes it;
 * - Hugging Face `/api/models`: ids linked by the aggregator's catalog of 2026-08-22
 *   (`Qwen/Qwen3.8-27B`, `tencent/Hy-MT2-30B-A3B`); creation times, downloads and likes are ours.
 */

import type { HuggingFaceAnswer, HuggingFaceRequest } from '../../src/public/huggingface.js';
import { DAY, T0 } from './catalog-fixtures.js';

export interface DevModelFacts {
  id: string;
  release?: string;
  open?: boolean;
}

function devModel(facts: DevModelFacts): Record<string, unknown> {
  return {
    id: facts.id,
    name: facts.id,
    family: 'family',
    attachment: false,
    reasoning: false,
    tool_call: true,
    temperature: true,
    knowledge: '2025-03',
    release_date: facts.release ?? '2025-01-01',
    last_updated: facts.release ?? '2025-01-01',
    modalities: { input: ['text'], output: ['text'] },
    open_weights: facts.open ?? false,
    cost: { input: 3, output: 15, cache_read: 0.3 },
    limit: { context: 200000, output: 64000 },
  };
}

/** An `api.json` answer: provider id → its models. */
export function modelsDevAnswer(providers: Record<string, DevModelFacts[]>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(providers).map(([id, models]) => [
      id,
      {
        id,
        name: id,
        env: [`${id.toUpperCase()}_API_KEY`],
        npm: `@ai-sdk/${id}`,
        doc: `https://example.com/${id}/docs`,
        models: Object.fromEntries(models.map((model) => [model.id, devModel(model)])),
      },
    ]),
  );
}

export interface RecordFacts {
  provider: string;
  model: string;
  name: string;
  aliases?: string[];
  deprecated?: string;
  shutdown?: string;
  earliest?: string;
  status?: 'active' | 'deprecated' | 'retired';
  replacement?: string;
  source?: string;
}

/** One record of modeldeprecations.dev's list, as its build writes it. */
export function deprecationRecord(facts: RecordFacts): Record<string, unknown> {
  const [replacementProvider, replacementModel] = (facts.replacement ?? '').split('/');
  return {
    provider: facts.provider,
    model: facts.model,
    name: facts.name,
    aliases: facts.aliases ?? [],
    description: 'Two to four sentences on what it was and why it goes away, written for this test.',
    released_on: '2025-04-14',
    ...(facts.deprecated === undefined ? {} : { deprecated_on: facts.deprecated }),
    ...(facts.shutdown === undefined ? {} : { shutdown_on: facts.shutdown }),
    ...(facts.earliest === undefined ? {} : { earliest_shutdown_on: facts.earliest }),
    status: facts.status ?? 'deprecated',
    replacements:
      facts.replacement === undefined
        ? []
        : [{ provider: replacementProvider, model: replacementModel, recommended: true, external: false }],
    sources: [
      {
        url: facts.source ?? 'https://developers.openai.com/api/docs/deprecations',
        title: 'Deprecations',
        accessed: '2026-07-30',
      },
    ],
    last_verified: '2026-07-30',
    computed_status: facts.status ?? 'deprecated',
  };
}

export function deprecationsAnswer(records: unknown[]): Record<string, unknown> {
  return {
    $schema: 'https://modeldeprecations.dev/api/v1/schema.json',
    generatedAt: '2026-08-22T06:00:00.000Z',
    asOf: '2026-08-22',
    count: records.length,
    models: records,
  };
}

// GPT-4.1 nano and o3: modeldeprecations.dev `models/openai/gpt-4.1-nano.yaml`, `o3.yaml`.
export const nanoRecord: RecordFacts = {
  provider: 'openai',
  model: 'gpt-4.1-nano',
  name: 'GPT-4.1 nano',
  aliases: ['gpt-4.1-nano-2025-04-14'],
  deprecated: '2026-04-22',
  shutdown: '2026-10-23',
  replacement: 'openai/gpt-5.6-luna',
};
export const o3Record: RecordFacts = {
  provider: 'openai',
  model: 'o3',
  name: 'o3',
  aliases: ['o3-2025-04-16'],
  deprecated: '2026-06-11',
  shutdown: '2026-12-11',
  replacement: 'openai/gpt-5.6-sol',
};

export interface RepoFacts {
  id: string;
  /** Days before T0. */
  createdDaysAgo: number;
  downloads?: number;
  likes?: number;
  quantizes?: string;
}

/** One entry of `/api/models`, with the default fields the listing returns. */
export function repo(facts: RepoFacts): Record<string, unknown> {
  const createdAt = new Date((T0 - facts.createdDaysAgo * DAY) * 1000).toISOString();
  return {
    _id: '66a1b2c3d4e5f60718293a4b',
    id: facts.id,
    modelId: facts.id,
    likes: facts.likes ?? 10,
    trendingScore: 3,
    private: false,
    downloads: facts.downloads ?? 1000,
    tags: [
      'transformers',
      'safetensors',
      'text-generation',
      'license:apache-2.0',
      ...(facts.quantizes === undefined
        ? []
        : [`base_model:${facts.quantizes}`, `base_model:quantized:${facts.quantizes}`]),
    ],
    pipeline_tag: 'text-generation',
    library_name: 'transformers',
    createdAt,
  };
}

export function request(org: string, lane: 'newest' | 'popular' = 'newest'): HuggingFaceRequest {
  return { org, lane, path: `/api/models?author=${org}` };
}

export function listing(
  org: string,
  repos: RepoFacts[],
  lane: 'newest' | 'popular' = 'newest',
): HuggingFaceAnswer {
  return { request: request(org, lane), body: repos.map(repo) };
}
