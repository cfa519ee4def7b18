/**
 * The baseline file: the findings a team has accepted, committed beside the code. JSON,
 * `{ "version": 1, "findings": [{ "path", "text", "kind", "count" }] }`, sorted so that a rewrite
 * changes only the lines that changed. Read as untrusted input (bounded, checked, a regular file
 * only); written atomically, keeping its mode, without the key (it holds none), only over a regular
 * file (renamed over a device or a FIFO, as root, it would replace `/dev/null` itself), and never
 * larger than a read accepts.
 */

import { describeFileError } from '../describe-error.js';
import { ConfigError } from '../errors.js';
import { nodeFs } from '../lazy-node.js';
import { modeToKeep, writeFileAtomic } from '../store/atomic-file.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { echoPath, echoValue } from '../text/redact.js';
import { FINDING_KINDS } from './findings.js';
import type { BaselineEntry } from './report.js';

/**
 * A baseline larger than this is neither read nor written: a real one is a few KB, and what is
 * written must be read back.
 */
const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

/**
 * The temp file of an atomic write of `name` (store/atomic-file.ts): `.<name>.<pid>.<hex>.tmp`. A
 * write killed before its rename leaves one beside the baseline, in the repository.
 */
export function tempFileOf(name: string): RegExp {
  return new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
}

/**
 * The entries of a baseline document, or what is wrong with it. Checked by hand: four fields a
 * finding, and a message that names the finding at fault by its place in the list.
 */
function baselineEntries(document: unknown): BaselineEntry[] | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'not an object';
  const { version, findings } = document as { version?: unknown; findings?: unknown };
  // The file's own text, quoted back: one line, and a key-like value hidden.
  if (version !== 1) return `version ${echoValue(JSON.stringify(version) ?? 'missing', [])}, not 1`;
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
    `--baseline ${echoPath(path)} ${why}. Write one with --write-baseline ${echoPath(path)}.`,
    'baseline',
    '--baseline',
  );

export async function readBaseline(path: string): Promise<BaselineEntry[]> {
  const unreadable = (error: unknown) => refuse(path, `cannot be read: ${describeFileError(error).reason}`);
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    opened = await openRegular(path, { followLink: true, anyOwner: true });
  } catch (error) {
    throw unreadable(error);
  }
  if (opened.kind === 'missing') throw refuse(path, 'does not exist');
  if (opened.kind === 'refused') throw refuse(path, opened.reason);
  let bytes: Buffer;
  try {
    bytes = await readHead(opened.file, MAX_BASELINE_BYTES);
  } catch (error) {
    throw unreadable(error);
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

const refuseWrite = (path: string, why: string) =>
  new ConfigError(`--write-baseline ${echoPath(path)} ${why}`, 'write-baseline', '--write-baseline');

function kindOf(info: import('node:fs').Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * Refuses a `--write-baseline` path that holds anything but a regular file (links followed), or
 * whose folder is not there: asked before the scan, so that a mistake costs nothing, and again just
 * before the write. The folder is not made: a recursive mkdir under /proc never returns (Node 20).
 */
export async function checkBaselineTarget(path: string): Promise<void> {
  const { dirname } = process.getBuiltinModule('node:path');
  let folder: import('node:fs').Stats;
  try {
    folder = await nodeFs().stat(dirname(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ConfigError(
        `cannot write ${echoPath(path)}: its folder ${echoPath(dirname(path))} does not exist. Make it first, or name a file in a folder that exists.`,
        'write-baseline',
        '--write-baseline',
      );
    }
    throw cannotWrite(path, error);
  }
  if (!folder.isDirectory())
    throw cannotWrite(path, Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' }));
  let info: import('node:fs').Stats;
  try {
    info = await nodeFs().stat(path);
  } catch {
    // Nothing there (a new file), or a path the write itself will explain.
    return;
  }
  if (!info.isFile()) {
    throw refuseWrite(
      path,
      `is not a regular file (it is ${kindOf(info)}): name a new file, or the baseline to replace.`,
    );
  }
}

/**
 * Removes the temp files that killed writes of this baseline left beside it: theirs is a pid that
 * no longer runs. Best effort: a temp file left is only untidy (the scan skips it).
 */
async function removeStaleTemps(path: string): Promise<void> {
  const { basename, dirname, join } = process.getBuiltinModule('node:path');
  const pattern = tempFileOf(basename(path));
  const names = await nodeFs()
    .readdir(dirname(path))
    .catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || pid === process.pid || isRunning(pid)) continue;
    await nodeFs()
      .rm(join(dirname(path), name), { force: true })
      .catch(() => {});
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A write the disk refused, as a plain message: the file, the reason, the fix. */
function cannotWrite(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  // Where a folder cannot take new files (/proc, say), the temp file's open finds no such file.
  const reason =
    code === 'ENOENT' ? 'its folder cannot hold a new file (ENOENT)' : describeFileError(error).reason;
  return new ConfigError(
    `cannot write ${echoPath(path)}: ${reason}; the old baseline, if any, is unchanged. ${writeFix(code)}`,
    'write-baseline',
    '--write-baseline',
  );
}

/** What to do about a write the disk refused, by its code. */
function writeFix(code: string | undefined): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return 'Make room there, or write it elsewhere.';
    case 'EROFS':
      return 'Write it on a file system that can be written.';
    case 'EACCES':
    case 'EPERM':
      return 'Check the owner and mode of the file and its folder (and chattr +i), or write it elsewhere.';
    default:
      return 'Name a file in a folder that exists and that this user can write.';
  }
}

export async function writeBaseline(path: string, entries: readonly BaselineEntry[]): Promise<void> {
  const findings = [...entries].sort(
    (a, b) => a.path.localeCompare(b.path) || a.text.localeCompare(b.text) || a.kind.localeCompare(b.kind),
  );
  const text = `${JSON.stringify({ version: 1, findings }, null, 2)}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_BASELINE_BYTES) {
    throw new ConfigError(
      `--write-baseline ${echoPath(path)}: the baseline would be ${(bytes / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_BASELINE_BYTES / 1024 / 1024} MiB --baseline reads (${findings.length} accepted findings). Nothing was written. Check fewer paths (or leave generated files out, .model-feed-ignore), or fix some findings first.`,
      'write-baseline',
      '--write-baseline',
    );
  }
  await checkBaselineTarget(path);
  await removeStaleTemps(path);
  try {
    await writeFileAtomic(path, text, { mode: await modeToKeep(path) });
  } catch (error) {
    throw cannotWrite(path, error);
  }
}
