/**
 * Replays the real consecutive snapshots of the aggregator's catalog kept beside the repository
 * (`../shared/data/origins/openrouter/`, 6-hourly, 2026-08-20 to 2026-08-22) and holds the derived
 * feed to the events a public tracker derived from the same snapshots (the oracle). Counts differ
 * where the rules differ on purpose; each difference is computed here, not typed in.
 */

import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/api/schemas.js';
import { type CatalogFeedState, diffCatalog } from '../../src/public/diff.js';
import { baseIdOf } from '../../src/public/model-id.js';
import type { CatalogSnapshot } from '../../src/public/openrouter-catalog.js';
import { loadOrigin, type OracleEvent, snapshotsHere } from './real-snapshots.js';

function replay(snapshots: CatalogSnapshot[]) {
  let state: CatalogFeedState | null = null;
  const firstLook: ChangeEvent[] = [];
  const pairs: ChangeEvent[] = [];
  for (const [index, snapshot] of snapshots.entries()) {
    const diff = diffCatalog(state, snapshot);
    (index === 0 ? firstLook : pairs).push(...diff.events);
    state = diff.state;
  }
  return { firstLook, pairs };
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** Our four kinds of deprecation, told apart by their values. */
function kindOf(event: ChangeEvent): string {
  if (event.eventType !== 'deprecation') return event.eventType;
  if (event.afterValue === 'removed') return 'deprecation:removed';
  if (event.beforeValue === 'removed') return 'deprecation:returned';
  if (event.afterValue === 'no expiration date') return 'deprecation:cleared';
  return 'deprecation:date';
}

describe.runIf(snapshotsHere)('replay of the real aggregator snapshots', () => {
  const { files, raw, snapshots, oracle } = loadOrigin();
  const { firstLook, pairs } = replay(snapshots);
  const firstDay = files[0]?.slice(3, 13) ?? '';
  const lastDay = files.at(-1)?.slice(3, 13) ?? '';
  const first = new Map(raw[0]?.data.map((model) => [model.id, model]));

  /**
   * The oracle dates its events by day only, and the first day also holds the diff INTO the first
   * snapshot (from one taken before it, which we do not have). Such an event's outcome already
   * holds in the first snapshot, so that is how it is told apart.
   */
  function beforeFirstSnapshot(event: OracleEvent): boolean {
    if (event.ts !== firstDay) return false;
    const model = first.get(event.id);
    switch (event.type) {
      case 'model_added':
        return model !== undefined;
      case 'model_removed':
        return model === undefined;
      case 'price_changed':
        return (
          model !== undefined &&
          (event.changes ?? []).every((change) => model.pricing[change.field] === change.next)
        );
      case 'context_changed':
        return model?.context_length === event.next_context;
      case 'deprecation_announced':
        return model?.expiration_date === event.next_expiration;
      default:
        return false;
    }
  }

  const window = oracle.filter((event) => event.ts >= firstDay && event.ts <= lastDay);
  const inWindow = window.filter((event) => !beforeFirstSnapshot(event));
  const oracleCounts = countBy(inWindow, (event) => event.type);
  const ours = countBy(pairs, kindOf);
  const everListed = new Set(
    snapshots.flatMap((snapshot) => [...snapshot.models.values()].map((m) => m.baseId)),
  );

  it('parses every model of every snapshot', () => {
    for (const [index, snapshot] of snapshots.entries()) {
      expect(snapshot.skipped, files[index]).toBe(0);
      expect(snapshot.models.size, files[index]).toBe(raw[index]?.data.length);
    }
  });

  it('derives one event per price change the oracle saw, aliases included', () => {
    expect(ours.price_change).toBe(oracleCounts.price_changed);
  });

  it('derives one new_model per new base id; the oracle also counts new variants', () => {
    const added = inWindow.filter((event) => event.type === 'model_added');
    const variantsOfKnown = added.filter(
      (event) => baseIdOf(event.id) !== event.id && first.has(baseIdOf(event.id)),
    );
    expect(variantsOfKnown.length).toBeGreaterThan(0);
    expect(ours.new_model).toBe(added.length - variantsOfKnown.length);
  });

  it('declares a removal only for a base id missing twice in a row; the oracle also counts variants', () => {
    const removed = inWindow.filter((event) => event.type === 'model_removed');
    const bases = removed.filter((event) => baseIdOf(event.id) === event.id);
    expect(ours['deprecation:removed']).toBe(bases.length);
    expect(ours['deprecation:returned'] ?? 0).toBe(0);
  });

  it('derives an api_change per context change (no modality changed in this window)', () => {
    expect(ours.api_change).toBe(oracleCounts.context_changed);
  });

  it('derives a deprecation per expiration date set or moved, and one per date withdrawn', () => {
    expect(ours['deprecation:date'] ?? 0).toBe(oracleCounts.deprecation_announced ?? 0);
    expect(ours['deprecation:cleared'] ?? 0).toBe(0);
  });

  it('marks as new on the first look only models registered in the 30 days before it', () => {
    const takenAt = snapshots[0]?.takenAt ?? 0;
    for (const event of firstLook) {
      const registered = Date.parse(event.detectedAt) / 1000;
      expect(takenAt - registered).toBeLessThanOrEqual(30 * 24 * 3600);
      expect(registered).toBeLessThanOrEqual(takenAt);
    }
    expect(firstLook.length).toBeGreaterThan(0);
    expect(everListed.size).toBeGreaterThan(firstLook.length);
  });

  it('derives the same ids when replayed again', () => {
    expect(replay(snapshots).pairs.map((event) => event.id)).toEqual(pairs.map((event) => event.id));
    expect(new Set(pairs.map((event) => event.id)).size).toBe(pairs.length);
  });
});
