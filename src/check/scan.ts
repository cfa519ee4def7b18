/**
 * The references under the given paths: the walker's files through the matcher, silenced lines left
 * out, each reference placed by line and column. What the references are found against is the
 * catalog; what is said about them comes after (findings.ts).
 *
 * The main thread walks, and reads and matches the first files itself (scan-file.ts). Once a tree
 * proves larger than INLINE_BYTES, a worker thread (pool.ts) is sent batches of the files that
 * follow, and the main thread matches the batches the worker does not hold, between steps of the
 * walk: both cores match. Outcomes are put in walk order, whichever thread had a file and whenever
 * it answered: the report is the same from one thread or several.
 *
 * One worker beside a main thread that matches too, not two beside a main thread that only walks:
 * a second isolate costs about 20 MB, which took a large tree's peak memory past its bound, and
 * three busy threads on two cores only competed for them, so the scan was slower, not faster.
 */

import { AbortedError } from '../errors.js';
import type { DroppedSpans, ModelMatcher } from './matcher.js';
import { BATCH_FILES, type ScanPool, startPool } from './pool.js';
import { type FileOutcome, scanFile } from './scan-file.js';
import { noteUnread, unreadReason } from './unread.js';
import { emptyCounts, type WalkCounts, type WalkOptions, walkPaths } from './walker.js';

export { MAX_LISTED_PER_FILE } from './scan-file.js';

/** A reference found in a file: a catalog model's, or a near miss (`modelId` null). */
export interface FoundReference {
  path: string;
  line: number;
  column: number;
  text: string;
  modelId: string | null;
  /** For a near miss: the catalog ids close to it. */
  suggestions: string[];
  /** A version or variant written after the model's name (matcher.ts). */
  version?: string;
  variant?: string;
}

export interface ScanResult {
  references: FoundReference[];
  counts: WalkCounts;
  /** Repeats left out past a file's first MAX_LISTED_PER_FILE references (scan-file.ts). */
  repeatsNotListed: number;
  /** References past MAX_SPANS_PER_FILE in a file or MAX_LISTED_TOTAL in the run, not listed. */
  notListed: DroppedSpans;
}

/**
 * A run lists at most this many references: 4,000 files of 1,000 `openai/gpt-4o` lines each are
 * 4,000,000, more than the memory of a CI runner holds. Past it, each is tallied instead (ScanResult.
 * notListed): the summary says how many, and the verdict still counts their findings.
 */
export const MAX_LISTED_TOTAL = 50_000;

/**
 * The main thread reads and matches files alone until it has read this many bytes; only a tree
 * larger than that starts a worker. A worker takes up to a tenth of a second to be ready (its
 * thread, Node in it, the matcher's names) and competes for a core meanwhile: on two cores it paid
 * for itself only past about 32 MB of files.
 */
export const INLINE_BYTES = 32 * 1024 * 1024;

export interface ScanOptions extends WalkOptions {
  /**
   * Threads that match, the main thread one of them: past `inlineBytes`, `threads - 1` workers join
   * it; 1 matches every file on the main thread.
   * @default min(2, availableParallelism())
   */
  threads?: number;
  /** @default INLINE_BYTES */
  inlineBytes?: number;
  /** The worker's script. @default dist/check-worker.cjs, beside the bundle that runs */
  workerFile?: string;
  /**
   * Past `inlineBytes`, leave every file to the workers, the main thread only walking: for tests,
   * which so send every file through a worker whatever its timing. @default false
   */
  workersOnly?: boolean;
  /** Stops the scan (AbortedError), its workers with it. */
  signal?: AbortSignal;
}

/**
 * Paths as the reports show them: forward slashes, whatever the platform. Only where `\` is the
 * separator: elsewhere it is part of a name (`src\app.py` is one file on Linux, not `src/app.py`).
 */
const shown = (path: string) =>
  process.getBuiltinModule('node:path').sep === '\\' ? path.split('\\').join('/') : path;

/** Where the bundle's worker is: beside it, in dist/ (`__dirname` is the bundle's folder). */
function defaultWorkerFile(): string {
  const { join } = process.getBuiltinModule('node:path');
  return join(__dirname, 'check-worker.cjs');
}

export async function scanPaths(
  paths: readonly string[],
  matcher: ModelMatcher,
  options: ScanOptions,
): Promise<ScanResult> {
  const counts: WalkCounts = emptyCounts();
  const threads = options.threads ?? Math.min(2, process.getBuiltinModule('node:os').availableParallelism());
  const inlineBytes = options.inlineBytes ?? INLINE_BYTES;
  /** Each file's shown path until its outcome is taken in. */
  const files: (string | undefined)[] = [];
  const references: FoundReference[] = [];
  let repeatsNotListed = 0;
  const notListed: DroppedSpans = { count: 0, nearMisses: 0, models: new Map() };
  const tally = (modelId: string | null, count = 1) => {
    notListed.count += count;
    if (modelId === null) notListed.nearMisses += count;
    else notListed.models.set(modelId, (notListed.models.get(modelId) ?? 0) + count);
  };
  /**
   * Outcomes are taken in in walk order, as soon as each one's turn comes, and let go: only those
   * that came before their turn (from a worker) are held, never the whole tree's references.
   */
  const waiting = new Map<number, FileOutcome>();
  let turn = 0;
  const takeIn = (index: number, outcome: FileOutcome) => {
    waiting.set(index, outcome);
    for (let next = waiting.get(turn); next; next = waiting.get(turn)) {
      waiting.delete(turn);
      const path = files[turn]!;
      files[turn++] = undefined;
      if (next.kind === 'unreadable') {
        noteUnread(counts, path, unreadReason(next.code));
        continue;
      }
      counts[next.kind]++;
      if (next.kind !== 'scanned') continue;
      repeatsNotListed += next.repeats;
      if (next.dropped.nearMisses) tally(null, next.dropped.nearMisses);
      for (const [modelId, count] of next.dropped.models) tally(modelId, count);
      for (const reference of next.references) {
        if (references.length < MAX_LISTED_TOTAL) references.push({ path, ...reference });
        else tally(reference.modelId);
      }
    }
  };
  let inline = 0;
  let pool: ScanPool | undefined;
  const aborted = () => {
    pool?.check();
    if (!options.signal?.aborted) return;
    throw new AbortedError();
  };
  const stop = () => void pool?.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  /** What is left of the run's cap when a file is sent: past it, a file's references are only tallied. */
  const listAtMost = () => Math.max(0, MAX_LISTED_TOTAL - references.length);
  const scan = (index: number, path: string, within: string | undefined) => {
    const outcome = scanFile(path, matcher, options.maxFileSize, within, listAtMost());
    if (outcome.kind === 'scanned') inline += outcome.bytes;
    takeIn(index, outcome);
  };
  /** The main thread matches a batch the workers do not hold (not if `workersOnly`), then lets answers in. */
  const share = async (active: ScanPool) => {
    if (!options.workersOnly) for (const file of active.take()) scan(file.index, file.path, file.within);
    await active.turn();
    aborted();
  };
  try {
    for await (const file of walkPaths(paths, options, counts)) {
      aborted();
      const index = files.push(shown(file.path)) - 1;
      // Past the bytes one thread does sooner, and with a file left to give them: the workers.
      if (!pool && threads >= 2 && inline > inlineBytes) {
        pool = startPool({
          file: options.workerFile ?? defaultWorkerFile(),
          workers: threads - 1,
          setup: { compiled: matcher.compiled, maxFileSize: options.maxFileSize },
          onOutcome: takeIn,
        });
      }
      if (!pool) {
        scan(index, file.absolute, file.within);
        continue;
      }
      pool.add({ index, path: file.absolute, within: file.within, listAtMost: listAtMost() });
      while (!options.workersOnly && pool.queued >= BATCH_FILES) await share(pool);
    }
    pool?.walked();
    while (pool?.queued) await share(pool);
    await pool?.finish();
    aborted();
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await pool?.close();
  }

  return { references, counts, repeatsNotListed, notListed };
}
