/**
 * The baseline file: the findings a team has accepted, committed beside the code. JSON,
 * `{ "version": 1, "findings": [{ "path", "text", "kind", "count" }] }`, sorted so that a rewrite
 * changes only the lines that changed. Read as untrusted input (bounded, checked, a regular file
 * only); written atomically, keeping its mode, without the key (it holds none).
 */

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { modeToKeep, writeFileAtomic } from '../store/atomic-file.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { oneLine } from '../text/terminal.js';
import { FINDING_KINDS } from './findings.js';
import type { BaselineEntry } from './report.js';

/** A baseline larger than this is refused: a real one is a few KB. */
const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

const BaselineSchema = z.object({
  version: z.literal(1),
  findings: z.array(
    z.object({
      path: z.string(),
      text: z.string(),
      kind: z.enum(FINDING_KINDS),
      count: z.number().int().positive(),
    }),
  ),
});

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
  const baseline = BaselineSchema.safeParse(parsed);
  if (!baseline.success) {
    const issue = baseline.error.issues[0];
    throw refuse(
      path,
      `is not a baseline of this version (${issue?.path.join('.') || 'the document'}: ${issue?.message})`,
    );
  }
  return baseline.data.findings;
}

export async function writeBaseline(path: string, entries: readonly BaselineEntry[]): Promise<void> {
  const findings = [...entries].sort(
    (a, b) => a.path.localeCompare(b.path) || a.text.localeCompare(b.text) || a.kind.localeCompare(b.kind),
  );
  const text = `${JSON.stringify({ version: 1, findings }, null, 2)}\n`;
  await writeFileAtomic(path, text, { mode: await modeToKeep(path) });
}
