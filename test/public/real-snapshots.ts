/**
 * The real consecutive snapshots of the aggregator's catalog kept beside the repository
 * (`../shared/data/origins/openrouter/`, 6-hourly, 2026-08-20 to 2026-08-22), and the events a public
 * tracker derived from them (the oracle). Read where they lie; never copied into the project.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOpenRouterCatalog } from '../../src/public/openrouter-catalog.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const originFolder = resolve(repoRoot, '../shared/data/origins/openrouter');

export interface RawModel {
  id: string;
  pricing: Record<string, unknown>;
  context_length: number | null;
  expiration_date: string | null;
}

export interface OracleEvent {
  ts: string;
  type: string;
  id: string;
  changes?: { field: string; prev: string | null; next: string | null }[];
  next_context?: number | null;
  next_expiration?: string | null;
}

/** `01-2026-08-20T0126Z.json` → unix seconds of 2026-08-20T01:26Z. */
export function takenAtOf(file: string): number {
  const match = /^\d+-(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z\.json$/.exec(file);
  if (match === null) throw new Error(`unexpected snapshot name ${file}`);
  return Date.parse(`${match[1]}T${match[2]}:${match[3]}:00Z`) / 1000;
}

/**
 * CI has `../shared` beside the checkout. A clone elsewhere (a bare temp folder) has no snapshots to
 * replay: the run says so, by name, rather than fail on data the project may not copy in.
 */
export const snapshotsHere = existsSync(originFolder);
if (!snapshotsHere) {
  console.warn(
    `the real snapshots of the aggregator's catalog are not beside this checkout (expected ${originFolder}): the replays of them (test/public/replay-*.test.ts) did not run.`,
  );
}

/** The snapshots and the oracle; nothing at all where they are not here (the suite then does not run). */
export function loadOrigin() {
  if (!snapshotsHere) return { files: [], raw: [], snapshots: [], oracle: [] as OracleEvent[] };
  const files = readdirSync(originFolder)
    .filter((file) => /^\d+-.*Z\.json$/.test(file))
    .sort();
  const raw = files.map(
    (file) => JSON.parse(readFileSync(join(originFolder, file), 'utf8')) as { data: RawModel[] },
  );
  const snapshots = files.map((file, index) => {
    const parsed = parseOpenRouterCatalog(raw[index], takenAtOf(file));
    if (!parsed.ok) throw new Error(`${file}: ${parsed.reason}`);
    return parsed.snapshot;
  });
  const oracleFile = readdirSync(originFolder).find((file) => file.startsWith('oracle-events-'));
  if (oracleFile === undefined) throw new Error(`no oracle-events-*.json in ${originFolder}`);
  const oracle = (
    JSON.parse(readFileSync(join(originFolder, oracleFile), 'utf8')) as { events: OracleEvent[] }
  ).events;
  return { files, raw, snapshots, oracle };
}
