/** The rule that ties a change event to the catalog model it is about (src/feed/concerns.ts). */

import { describe, expect, it } from 'vitest';
import { apiSchemas, type ChangeEvent, type Model } from '../../src/api/schemas.js';
import { concernedModel, concernedModelId, concernsModel, indexModels } from '../../src/feed/concerns.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { changeEvent, model } from '../fixtures.js';

const { ChangeEvent: ChangeEventSchema, Model: ModelSchema } = apiSchemas();

const CATALOG: Model[] = [
  model({
    id: 'quillon/quill-mini-2',
    name: 'quill-mini-2',
    displayName: 'Quill Mini 2',
    vendor: 'Quillon',
    huggingfaceId: 'Quillon/Quill-Mini-2-Instruct',
  }),
  model({ id: 'quillon/quill-3', name: 'quill-3', displayName: 'Quill 3', vendor: 'Quillon' }),
  model({
    id: 'quillon/quill-3:free',
    name: 'quill-3:free',
    displayName: 'Quill 3 (free)',
    vendor: 'Quillon',
  }),
  // The same name under two vendors: the event's vendor slug tells them apart.
  model({ id: 'acme/atlas', name: 'Atlas', displayName: 'Acme: Atlas', vendor: 'Acme' }),
  model({ id: 'globex/atlas', name: 'Atlas', displayName: 'Globex: Atlas', vendor: 'Globex' }),
].map((m) => ModelSchema.parse(m));
const index = indexModels(CATALOG);

/** A deprecation with no id in its text unless `fields` puts one there. */
function event(name: string | null, fields: Record<string, unknown> = {}, slug = 'quillon'): ChangeEvent {
  return ChangeEventSchema.parse(
    changeEvent({
      eventType: 'deprecation',
      title: 'Retirement notice',
      summary: null,
      beforeValue: null,
      afterValue: null,
      model: { slug, name },
      ...fields,
    }),
  );
}

const about = (e: ChangeEvent): string | undefined => concernedModelId(e, index);

describe('concernedModelId: by the name the event gives', () => {
  it.each([
    ['the display name', 'Quill Mini 2'],
    ['the name', 'quill-mini-2'],
    ['either, in another case and spacing', '  QUILL   mini 2 '],
  ])('matches %s', (_shape, name) => {
    expect(about(event(name))).toBe('quillon/quill-mini-2');
  });

  it("a name that matches a model decides, whatever ids the text names (the replacement's notice)", () => {
    expect(about(event('Quill 3', { title: 'Quill 3 takes over from quillon/quill-mini-2' }))).toBe(
      'quillon/quill-3',
    );
  });

  it("prefers the model in the event's vendor namespace when models share a name", () => {
    expect(about(event('Atlas', {}, 'globex'))).toBe('globex/atlas');
    expect(about(event('atlas', {}, 'acme'))).toBe('acme/atlas');
    expect(about(event('Atlas', {}, 'initech'))).toBe('acme/atlas');
  });
});

describe('concernedModelId: by the first id in the text, when the name matches no model', () => {
  it('takes the first id, not the replacement named after it', () => {
    const notice = { title: 'Quillon retires quillon/quill-mini-2', summary: 'Move to quillon/quill-3.' };
    expect(about(event('Quill legacy line', notice))).toBe('quillon/quill-mini-2');
    expect(about(event(null, notice))).toBe('quillon/quill-mini-2');
    // Title before summary, summary before the values.
    expect(
      about(
        event(null, {
          title: 'Retired',
          summary: 'quillon/quill-3 replaces it',
          beforeValue: 'quillon/quill-mini-2',
        }),
      ),
    ).toBe('quillon/quill-3');
    expect(about(event(null, { afterValue: 'use quillon/quill-3' }))).toBe('quillon/quill-3');
  });

  it.each([
    [
      'a Hugging Face id, in any case',
      'quillon/quill-mini-2-instruct weights withdrawn',
      'quillon/quill-mini-2',
    ],
    ['an hf: id', 'hf:Quillon/Quill-Mini-2-Instruct withdrawn', 'quillon/quill-mini-2'],
    ['an id in a URL', 'see https://huggingface.co/Quillon/Quill-Mini-2-Instruct.', 'quillon/quill-mini-2'],
    ['an id at the end of a sentence', 'Retiring quillon/quill-3.', 'quillon/quill-3'],
    ['an id in brackets', 'Retired (quillon/quill-mini-2)', 'quillon/quill-mini-2'],
    ['a variant the catalog lists', 'quillon/quill-3:free retired', 'quillon/quill-3:free'],
    ['a variant it does not', 'quillon/quill-mini-2:free retired', 'quillon/quill-mini-2'],
  ])('finds %s', (_shape, title, id) => {
    expect(about(event('something else', { title }))).toBe(id);
  });

  it.each([
    ['a longer id', 'quillon/quill-mini-2-preview retired'],
    ['an id inside another path', 'xquillon/quill-3 retired'],
    ['no id at all', 'Quill Mini 2 retired'],
  ])('finds nothing in %s', (_shape, title) => {
    expect(about(event(null, { title }))).toBeUndefined();
  });

  it('bounds the work on a huge text, and still finds an id near its start', () => {
    const huge = `${'a'.repeat(2_000_000)}/b ${'x/'.repeat(500_000)}`;
    const started = performance.now();
    expect(about(event(null, { title: huge, summary: huge, afterValue: 'quillon/quill-3' }))).toBeUndefined();
    expect(about(event(null, { title: `quillon/quill-3 ${huge}` }))).toBe('quillon/quill-3');
    // A bound on a hang, not a speed: unbounded matching on this text runs for minutes.
    expect(performance.now() - started).toBeLessThan(20_000);
    // Past the first 16 KiB of text, an id is not looked for.
    expect(about(event(null, { title: `${'a '.repeat(10_000)}quillon/quill-3` }))).toBeUndefined();
  });
});

describe('concernedModelId on the bundled data set', () => {
  it('ties every change event to the model it was recorded for', () => {
    const raw = loadBundledData();
    const catalog = raw.models.map((m) =>
      ModelSchema.parse(
        model({
          id: m.id,
          name: m.name,
          displayName: `${m.vendor}: ${m.name}`,
          vendor: m.vendorSlug,
          huggingfaceId: m.huggingFaceId,
        }),
      ),
    );
    const bundled = indexModels(catalog);
    const wrong = raw.events
      .map((e, i) => ({
        i,
        expected: e.catalogId,
        got: concernedModelId(ChangeEventSchema.parse({ ...e, id: String(i) }), bundled),
      }))
      .filter((r) => r.got !== r.expected);
    expect(wrong).toEqual([]);
    expect(raw.events.length).toBeGreaterThan(50);
  });
});

describe('concernsModel: a variant retired concerns the variant, not its model', () => {
  it.each([
    ['named as an id in the title', 'Quill Mini 2 free variant (quillon/quill-mini-2:free) retired'],
    ['named in words only', 'Quill Mini 2 free variant retired'],
    ['named as an id alone', 'quillon/quill-mini-2:free retired'],
  ])('%s', (_how, title) => {
    const notice = event('Quill Mini 2', { title });
    expect(concernedModel(notice, index)).toEqual({ modelId: 'quillon/quill-mini-2', variant: 'free' });
    expect(concernsModel(notice, index, 'quillon/quill-mini-2')).toBe(false);
    expect(concernsModel(notice, index, 'quillon/quill-mini-2', 'free')).toBe(true);
    expect(concernsModel(notice, index, 'quillon/quill-mini-2', 'beta')).toBe(false);
  });

  it('an event about the model concerns each of its variants too', () => {
    const notice = event('Quill Mini 2', { title: 'Quill Mini 2 retired; a new variant is coming' });
    expect(concernedModel(notice, index)).toEqual({ modelId: 'quillon/quill-mini-2', variant: null });
    expect(concernsModel(notice, index, 'quillon/quill-mini-2')).toBe(true);
    expect(concernsModel(notice, index, 'quillon/quill-mini-2', 'free')).toBe(true);
  });

  it('a variant the catalog lists is a model of its own', () => {
    const notice = event('something else', { title: 'quillon/quill-3:free retired' });
    expect(concernedModel(notice, index)).toEqual({ modelId: 'quillon/quill-3:free', variant: null });
    expect(concernsModel(notice, index, 'quillon/quill-3')).toBe(false);
  });
});
