import { describe, expect, it } from 'vitest';
import { type ChangeEvent, ChangeEventSchema, type Model, ModelSchema } from '../../src/api/schemas.js';
import {
  changeLine,
  modelLine,
  renderChanges,
  renderModels,
  renderPriceHistory,
  thousands,
} from '../../src/tools/render.js';
import { changeEvent, model } from '../fixtures.js';

const event = (o: Record<string, unknown> = {}): ChangeEvent => ChangeEventSchema.parse(changeEvent(o));
const aModel = (o: Record<string, unknown> = {}): Model => ModelSchema.parse(model(o));

describe('text renderings', () => {
  it('one line per event with date, type, model, title, before → after, verification and source', () => {
    expect(changeLine(event())).toBe(
      '2024-08-06 price_change | GPT-4o (openai) | GPT-4o price cut | in $5 / out $15 per 1M tokens → in $2.5 / out $10 per 1M tokens | official | https://openrouter.ai/openai/gpt-4o',
    );
  });

  it('shows a later publication date', () => {
    expect(changeLine(event({ publishedAt: '2024-08-09T10:00:00Z' }))).toContain(
      '2024-08-06 (published 2024-08-09) price_change',
    );
  });

  it('ends a since-poll with how to poll again', () => {
    const text = renderChanges({ items: [event()], nextCursor: null, latest: 1722902400 }, { since: 0 });
    expect(text.split('\n')).toEqual([
      '1 change after since=0, oldest first:',
      expect.stringMatching(/^- 2024-08-06 price_change/),
      'To poll for newer changes, call again with since=1722902400.',
    ]);
  });

  it('says when nothing is new', () => {
    expect(renderChanges({ items: [], nextCursor: null, latest: null }, { since: 99 })).toBe(
      '0 changes after since=99, oldest first:\nNothing newer yet; poll again later with since=99.',
    );
  });

  it('one line per model', () => {
    expect(modelLine(aModel())).toBe(
      'openai/gpt-4o — OpenAI: GPT-4o (openai, commercial): in $2.5 / out $10 per 1M tokens; context 128,000; attention #1',
    );
    const text = renderModels([aModel()], 7, { vendor: 'openai', maxInputPrice: 3 });
    expect(text).toContain('1 of 7 models matching vendor=openai, input <= $3/1M, by attention:');
    expect(text).toContain('Raise limit');
  });

  it('price history as dated points', () => {
    expect(
      renderPriceHistory({
        id: 'x',
        currency: 'USD',
        unit: 'per 1M tokens',
        since: 0,
        points: [
          { inputPrice: 5, outputPrice: 15, observedAt: 1715558400 },
          { inputPrice: 2.5, outputPrice: 10, observedAt: 1722902400 },
        ],
      }),
    ).toBe('Price history (USD per 1M tokens): 2024-05-13 in $5 / out $15; 2024-08-06 in $2.5 / out $10');
  });
});

describe('thousands', () => {
  it('groups digits without Intl', () => {
    expect([0, 999, 1000, 128000, 1050000].map(thousands)).toEqual([
      '0',
      '999',
      '1,000',
      '128,000',
      '1,050,000',
    ]);
  });
});
