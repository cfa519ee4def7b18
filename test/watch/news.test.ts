import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/api/schemas.js';
import { createDelivery, type Delivery } from '../../src/feed/envelope.js';
import {
  DeliveredMemory,
  MAX_REMEMBERED,
  MAX_REMEMBERED_VALUE,
  readRemembered,
} from '../../src/watch/news.js';
import { markingTag } from '../../src/watch/news-text.js';
import { readState, saveState } from '../../src/watch/state.js';
import { changeEvent } from '../fixtures.js';

const { ChangeEvent: ChangeEventSchema } = apiSchemas();

function delivery(overrides: Record<string, unknown> = {}): Delivery {
  const data = changeEvent(overrides);
  return createDelivery(data, ChangeEventSchema.parse(data), new Date('2026-01-02T00:00:00Z'));
}

const folder = mkdtempSync(join(tmpdir(), 'mf-news-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('DeliveredMemory', () => {
  it('tells a change never delivered from an update, naming what moved and its value before', () => {
    const memory = new DeliveredMemory();
    const first = delivery({ verificationStatus: 'pending', afterValue: 'in $2' });
    expect(memory.mark(first)).toEqual({ delivery: 'new', changed: [], previous: {}, rejected: false });
    memory.remember(first);

    const moved = delivery({ verificationStatus: 'rejected', afterValue: 'in $3' });
    const marking = memory.mark(moved);
    expect(marking).toEqual({
      delivery: 'update',
      changed: ['verificationStatus', 'afterValue'],
      previous: { verificationStatus: 'pending', afterValue: 'in $2' },
      rejected: true,
    });
    expect(markingTag(marking, moved.envelope.data)).toBe(
      '[REJECTED, not a real change; update: verification pending → rejected; value in $2 → in $3]',
    );
  });

  it('names a long value that moved without keeping it', () => {
    const memory = new DeliveredMemory();
    memory.remember(delivery({ summary: 'a'.repeat(MAX_REMEMBERED_VALUE + 1) }));
    const moved = delivery({ summary: 'b'.repeat(MAX_REMEMBERED_VALUE + 1) });
    const marking = memory.mark(moved);
    expect(marking).toMatchObject({ delivery: 'update', changed: ['summary'], previous: {} });
    expect(markingTag(marking, moved.envelope.data)).toBe('[update: summary changed]');
    const stored = JSON.stringify(memory.list());
    expect(stored).not.toContain('aaaa');
  });

  it(`forgets the change delivered longest ago past ${MAX_REMEMBERED}`, () => {
    const memory = new DeliveredMemory();
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    for (let n = 0; n <= MAX_REMEMBERED; n++) memory.remember(delivery({ id: id(n) }));
    expect(memory.list()).toHaveLength(MAX_REMEMBERED);
    expect(memory.mark(delivery({ id: id(0) })).delivery).toBe('new');
    expect(memory.mark(delivery({ id: id(1) })).delivery).toBe('update');
  });
});

describe('the state file', () => {
  it(`keeps the remembered changes, within a bound of size, and reads back only what it could have written`, async () => {
    const memory = new DeliveredMemory();
    for (let n = 0; n < MAX_REMEMBERED; n++) {
      memory.remember(
        delivery({
          id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
          title: 'T'.repeat(5000),
          summary: 'S'.repeat(5000),
          afterValue: 'v'.repeat(MAX_REMEMBERED_VALUE),
          beforeValue: 'w'.repeat(MAX_REMEMBERED_VALUE),
          verificationStatus: 'x'.repeat(MAX_REMEMBERED_VALUE),
          detectedAt: '2026-01-01T00:00:00.000Z',
          publishedAt: '2026-01-01T00:00:00.000Z',
          sourceUrl: 'https://example.test/'.padEnd(2000, 'u'),
        }),
      );
    }
    const path = join(folder, 'state.json');
    const state = {
      cursor: 7,
      service: 's',
      filters: {},
      delivered: 1,
      updatedAt: '',
      remembered: memory.list(),
    };
    await saveState(path, state);
    // Long values, and titles and summaries, are kept as digests: the file stays under half a megabyte.
    expect(statSync(path).size).toBeLessThan(512 * 1024);
    const read = await readState(path);
    expect(read?.remembered).toEqual(memory.list());
    expect(new DeliveredMemory(read?.remembered).mark(delivery({ id: memory.list()[0]?.id })).delivery).toBe(
      'update',
    );
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(7);

    const named = '0'.repeat(40);
    expect(
      readRemembered([
        {
          id: 'a',
          hash: 'abc',
          values: { afterValue: 'ok', beforeValue: 'x'.repeat(MAX_REMEMBERED_VALUE + 1), title: 'no' },
          named,
        },
        { id: 7, hash: 'abc', values: {}, named },
        { id: 'b', hash: 'not hex', values: {}, named },
        { id: 'c', hash: 'abc', values: {}, named: 'short' },
        null,
      ]),
    ).toEqual([{ id: 'a', hash: 'abc', values: { afterValue: 'ok' }, named }]);
  });
});
