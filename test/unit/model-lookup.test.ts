import { describe, expect, it } from 'vitest';
import { ModelSchema } from '../../src/api/schemas.js';
import { closestIds, findModel, normalizeId } from '../../src/tools/model-lookup.js';
import { model } from '../fixtures.js';

const catalog = [
  model(),
  model({ id: 'openai/gpt-4o-mini', huggingfaceId: null }),
  model({ id: 'deepseek/deepseek-r1', huggingfaceId: 'deepseek-ai/DeepSeek-R1' }),
  model({ id: 'meta-llama/llama-3.3-70b-instruct', huggingfaceId: 'meta-llama/Llama-3.3-70B-Instruct' }),
].map((m) => ModelSchema.parse(m));

describe('model lookup', () => {
  it('finds by catalog id or Hugging Face id, case-insensitively', () => {
    expect(findModel(catalog, 'OpenAI/GPT-4o')).toMatchObject({
      matchedBy: 'id',
      model: { id: 'openai/gpt-4o' },
    });
    expect(findModel(catalog, 'deepseek-ai/deepseek-r1')).toMatchObject({
      matchedBy: 'huggingfaceId',
      model: { id: 'deepseek/deepseek-r1' },
    });
  });

  it('accepts the forms people paste', () => {
    expect(normalizeId(' hf:deepseek-ai/DeepSeek-R1 ')).toBe('deepseek-ai/deepseek-r1');
    expect(normalizeId('https://huggingface.co/deepseek-ai/DeepSeek-R1/')).toBe('deepseek-ai/deepseek-r1');
    expect(normalizeId('https://openrouter.ai/openai/gpt-4o')).toBe('openai/gpt-4o');
  });

  it('suggests close ids for a miss, and none for nonsense', () => {
    expect(findModel(catalog, 'openai/gpt-4')).toBeUndefined();
    expect(closestIds(catalog, 'openai/gpt-4')).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini']);
    expect(closestIds(catalog, 'deepseek-r2')).toEqual(['deepseek/deepseek-r1']);
    expect(closestIds(catalog, 'zzzzzz/qqqqq')).toEqual([]);
  });
});
