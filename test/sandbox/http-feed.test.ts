import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { call, type FeedPageBody } from './http-helpers.js';

const TOTAL_EVENTS = 53;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});

afterAll(async () => {
  await sandbox.close();
});

async function changes(query: string): Promise<FeedPageBody> {
  const answer = await call<FeedPageBody>(sandbox, `/api/v1/changes?${query}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Polls with since=latest until nothing new comes; fails if it would loop. */
async function pollFrom(since: number, limit: number): Promise<{ ids: string[]; latest: number }> {
  const ids: string[] = [];
  let cursor = since;
  for (let round = 0; round <= TOTAL_EVENTS + 1; round++) {
    const page = await changes(`since=${cursor}&limit=${limit}`);
    if (page.latest === null) return { ids, latest: cursor };
    expect(page.nextCursor).toBeNull();
    ids.push(...page.items.map((item) => item.id));
    cursor = page.latest;
  }
  throw new Error('polling did not terminate');
}

describe('the change feed over HTTP', () => {
  it('polling since=latest at limit=2 from 0 sees every item once, oldest first', async () => {
    const { ids } = await pollFrom(0, 2);
    expect(ids).toHaveLength(TOTAL_EVENTS);
    expect(new Set(ids).size).toBe(TOTAL_EVENTS);
    const newestFirst = (await changes('limit=100')).items.map((item) => item.id);
    expect(ids).toEqual(newestFirst.reverse());
  });

  it('paging with before=nextCursor returns each item once, newest first', async () => {
    const ids: string[] = [];
    let query = 'limit=7';
    for (let round = 0; round <= TOTAL_EVENTS; round++) {
      const page = await changes(query);
      ids.push(...page.items.map((item) => item.id));
      if (page.nextCursor === null) break;
      query = `limit=7&before=${page.nextCursor}`;
    }
    expect(ids).toHaveLength(TOTAL_EVENTS);
    expect(new Set(ids).size).toBe(TOTAL_EVENTS);
    expect(ids).toEqual((await changes('limit=100')).items.map((item) => item.id));
  });

  it('since with before gives the items strictly between them', async () => {
    const all = await pollFrom(0, 100);
    const first = await changes('since=0&limit=5');
    const between = await changes(`since=0&before=${first.latest}&limit=100`);
    expect(between.items.map((item) => item.id)).toEqual(all.ids.slice(0, 4));
  });

  it('a verification change makes the item reappear for a poller that had caught up', async () => {
    const { latest } = await pollFrom(0, 100);
    const pending = (await changes('limit=100')).items.find((item) => item.verificationStatus === 'pending');
    if (pending === undefined) throw new Error('the data set has no pending event');
    sandbox.setVerification(pending.id, 'official');
    const page = await changes(`since=${latest}`);
    expect(page.items).toEqual([{ ...pending, verificationStatus: 'official', official: true }]);
    expect(page.latest).toBeGreaterThan(latest);
    expect((await changes(`since=${page.latest}`)).items).toEqual([]);
    expect(() => sandbox.setVerification(pending.id, 'rejected')).toThrow(/only pending/);
  });
});
