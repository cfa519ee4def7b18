/**
 * The baseline file: the findings a team has accepted, committed beside the code. JSON,
 * `{ "version": 1, "findings": [{ "path", "text", "kind", "count" }] }`, sorted so that a rewrite
 * changes only the lines that changed. Read as untrusted input (bounded, checked, a regular file
 * only); written atomically, keeping its mode, without the key (it holds none).
 */

import { ConfigError } from '../errors.js';
import { modeToKeep, writeFileAtomic } from '../store/atomic-file.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { oneLine } from '../text/terminal.js';
import { FINDING_KINDS } from './findings.js';
import type { BaselineEntry } from './report.js';

/** A baseline larger than this is refused: a real one is a few KB. */
const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

/**
 * The entries of a baseline document, or what is wrong with it. Checked by hand, not with zod: this
 * module is the command line's, and zod's `z` taken from the server's bundle would keep all of zod
 * there, locales included (scripts/shared-modules.ts).
 */
function baselineEntries(document: unknown): BaselineEntry[] | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'not an object';
  const { version, findings } = document as { version?: unknown; findings?: unknown };
  if (version !== 1) return `version ${JSON.stringify(version) ?? 'missing'}, not 1`;
  if (!Array.isArray(findings)) return 'no "findings" list';
  const entries: BaselineEntry[] = [];
  for (const [i, entry] of findings.entries()) {
    const { path, text, kind, count } = (entry ?? {}) as Record<string, unknown>;
    if (
      typeof path !== 'string' ||
      typeof text !== 'string' ||
      !(FINDING_KINDS as readonly unknown[]).includes(kind) ||
      !Number.isSafeInteger(count) ||
      (count as number) < 1
    ) {
      return `finding ${i + 1} is not { path, text, kind, count }`;
    }
    entries.push({ path, text, kind: kind as BaselineEntry['kind'], count: count as number });
  }
  return entries;
}

const refuse = (path: string, why: string) =>
  new ConfigError(
    `--baseline ${oneLine(path)} ${why}. Write one with --write-baseline ${oneLine(path)}.`,
    'baseline',
    '--baseline',
  );

export async function readBaseline(path: string): Promise<BaselineEntry[]> {
  const opened = await openRegular(path, { followLink: true, anyOwner: true });
  if (opened.kind === 'missing') throw refuse(path, 'does not exist');
  if (opened.kind === 'refused') throw refuse(path, opened.reason);
  let bytes: Buffer;
  try {
    bytes = await readHead(opened.file, MAX_BASELINE_BYTES);
  } finally {
    await opened.file.close();
  }
  if (bytes.length > MAX_BASELINE_BYTES)
    throw refuse(path, `is larger than ${MAX_BASELINE_BYTES / 1024 / 1024} MiB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw refuse(path, 'is not JSON');
  }
  const entries = baselineEntries(parsed);
  if (typeof entries === 'string') throw refuse(path, `is not a baseline of this version (${entries})`);
  return entries;
}

export async function writeBaseline(path: string, entries: readonly BaselineEntry[]): Promise<void> {
  const findings = [...entries].sort(
    (a, b) => a.path.localeCompare(b.path) || a.text.localeCompare(b.text) || a.kind.localeCompare(b.kind),
  );
  const text = `${JSON.stringify({ version: 1, findings }, null, 2)}\n`;
  await writeFileAtomic(path, text, { mode: await modeToKeep(path) });
}
