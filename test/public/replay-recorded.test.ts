/**
 * The real snapshots (../shared/data/origins/openrouter) recorded as the runner records them: each
 * through snapshotCommit into a files store, then read back as the tools read it. The feed must be
 * the diff's events in order, a poller that sends back `latest` must get each once, and the price
 * histories must agree with an independent diff of the raw answers written here.
 */

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/api/schemas.js';
import { type CatalogFeedState, diffCatalog } from '../../src/public/diff.js';
import type { RecordedState, RecordedStateJson } from '../../src/public/recorded-state.js';
import { snapshotCommit } from '../../src/public/snapshot-commit.js';
import { openFileStore } from '../../src/public/store/file-store.js';
import { queryFeed } from '../../src/service-rules/feed-query.js';
import { tempFolder } from '../support/temp.js';
import { loadOrigin, snapshotsHere } from './real-snapshots.js';

/** USD per 1M tokens of a per-token decimal string, to the billionth, as a person would compute it. */
function perMillion(value: unknown): number | null {
  const n = Number(value);
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(n) && n >= 0
    ? Math.round(n * 1e6 * 1e9) / 1e9
    : null;
}

describe.runIf(snapshotsHere)('the real snapshots, recorded and read back', () => {
  const { raw, snapshots } = loadOrigin();

  it('keeps the diff’s events in order, each once, and pages through them with since=latest', async () => {
    const folder = join(tempFolder('mf-replay-store-'), 'store');
    const store = openFileStore<RecordedStateJson>(folder);
    let state: RecordedState | null = null;
    let diffState: CatalogFeedState | null = null;
    const expected: ChangeEvent[] = [];
    for (const snapshot of snapshots) {
      const diff = diffCatalog(diffState, snapshot);
      diffState = diff.state;
      expected.push(...diff.events);
      const poll = { takenAt: snapshot.takenAt, origins: { openrouter: 'ok' } };
      const recorded = snapshotCommit(state, { catalog: snapshot }, poll);
      await store.withFetchLock(() => store.append(recorded.commit));
      state = recorded.state;
    }
    const feed = await store.readFeed();
    expect(feed.map((entry) => entry.event.id)).toEqual(expected.map((event) => event.id));
    const times = feed.map((entry) => entry.changeTime);
    expect(times.every((time, index) => index === 0 || time > (times[index - 1] ?? 0))).toBe(true);

    const seen: string[] = [];
    let since = 0;
    for (let page = 0; page < 1_000; page++) {
      const answer = queryFeed(feed, { since, limit: 7 });
      if (answer.items.length === 0) break;
      seen.push(...answer.items.map((event) => event.id));
      since = answer.latest ?? since;
    }
    expect(seen).toEqual(expected.map((event) => event.id));

    // The price history of every model the last snapshot lists, against a plain diff of the raw
    // answers: a point on the first snapshot, then one whenever input or output moved.
    const prices = await store.readPrices();
    const last = snapshots.at(-1);
    let checked = 0;
    for (const model of last?.models.values() ?? []) {
      if (model.alias) continue;
      const points: [number | null, number | null][] = [];
      for (const answer of raw) {
        const entry = answer.data.find((candidate) => candidate.id === model.id);
        if (entry === undefined) continue;
        const point: [number | null, number | null] = [
          perMillion(entry.pricing.prompt),
          perMillion(entry.pricing.completion),
        ];
        const previous = points.at(-1);
        if (previous === undefined || previous[0] !== point[0] || previous[1] !== point[1])
          points.push(point);
      }
      const recordedPoints = (prices.get(model.id) ?? []).map((point) => [
        point.inputPrice,
        point.outputPrice,
      ]);
      expect(recordedPoints, model.id).toEqual(points);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(300);

    // Twelve snapshots of ~420 models: the store keeps changes, not answers (each over 600 KB).
    const bytes = Object.fromEntries(
      readdirSync(folder).map((name) => [name, statSync(join(folder, name)).size]),
    );
    expect(bytes['polls.jsonl']).toBeLessThan(snapshots.length * 300);
    expect(Object.values(bytes).reduce((sum, size) => sum + size, 0)).toBeLessThan(1024 * 1024);
  });
});
