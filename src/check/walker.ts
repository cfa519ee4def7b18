/**
 * The files `check` reads: every text file under the given paths that git would track, whether or
 * not the tree is a git repository. It honours `.gitignore` files at every level, the repository's
 * `.git/info/exclude`, and `.model-feed-ignore` files (same syntax); it skips `.git`,
 * `node_modules`, binary files (a NUL byte in the first 8 KB, as git decides), files over the size
 * limit, and anything that is not a regular file. Symbolic links are followed only to regular
 * files inside the tree: never to folders (no loops) and never out of it.
 *
 * The user's tree is untrusted: every file is opened without blocking and checked on its
 * descriptor (a FIFO is refused, not waited on), ignore files are read only up to a bound, and
 * folders are walked only so deep.
 *
 * `walkPaths` gives the files to read, and `check` reads them where it matches them (read-file.ts),
 * on worker threads for a large tree; `walkFiles` reads them too.
 */

import { nodeFs } from '../lazy-node.js';
import { openRegular, readHead } from '../store/open-regular.js';
import { tempFileOf } from './baseline-file.js';
import { compileIgnore, type IgnoreMatcher } from './ignore-rules.js';
import { isWithin, listFolder } from './in-tree.js';
import { readTextFile } from './read-file.js';
import { noteUnread, pathArgument, type UnreadCounts, unreadReason } from './unread.js';

/** Folders never walked, wherever they are. */
const NEVER_WALKED = new Set(['.git', 'node_modules']);
const IGNORE_FILES = ['.gitignore', '.model-feed-ignore'];
/** An ignore file larger than this is not read: real ones are a few KB. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
/** How deep below a path the walk goes; deeper folders are counted as skipped. */
const MAX_DEPTH = 64;
/** How far up from a path a repository's top (a folder holding `.git`) is looked for. */
const MAX_ANCESTORS = 64;

export interface WalkOptions {
  /** Files larger than this many bytes are skipped and counted. */
  maxFileSize: number;
  /** Absolute paths never read (the baseline: it names every accepted reference). */
  skip?: ReadonlySet<string>;
}

/**
 * A file to read: its path as given (relative paths stay relative), the path to open, and the real
 * path of the tree it must be inside once opened (none for a file named on the command line).
 */
export interface WalkedFile {
  path: string;
  absolute: string;
  within?: string;
}

/** A text file to scan: its path as given (relative paths stay relative) and its content. */
export interface ScannedFile {
  path: string;
  text: string;
}

/** What the walk left out, by reason, for the summary; what it could not read, named (unread.ts). */
export interface WalkCounts extends UnreadCounts {
  scanned: number;
  tooLarge: number;
  binary: number;
  /** Not a regular file, a link out of the tree, gone meanwhile, or too deep. */
  other: number;
  /** Ignore rules left out, too long or too many (ignore-rules.ts)… */
  ignoreRulesLeftOut: number;
  /** …and the first ignore files that had such, as the report shows them. */
  ignoreFilesCapped: string[];
}

export const emptyCounts = (): WalkCounts => ({
  scanned: 0,
  tooLarge: 0,
  binary: 0,
  other: 0,
  unreadable: 0,
  unread: [],
  ignoreRulesLeftOut: 0,
  ignoreFilesCapped: [],
});

/** Ignore files named for rules left out; past them, only counted. */
const MAX_CAPPED_NAMED = 5;

function noteCapped(counts: WalkCounts, name: string): void {
  if (counts.ignoreFilesCapped.length < MAX_CAPPED_NAMED) counts.ignoreFilesCapped.push(name);
}

/** One level of ignore rules: the folder they live in, and the rules. */
interface IgnoreLevel {
  folder: string;
  rules: IgnoreMatcher;
}

type Fs = typeof import('node:fs/promises');

/**
 * An ignore file's bytes, if it is a regular file of at most `limit` bytes, or why not. Opened
 * without blocking and judged on its descriptor (store/open-regular.ts); anyone's file.
 */
async function readRegular(
  path: string,
  limit: number,
): Promise<{ bytes: Buffer } | { skipped: 'tooLarge' | 'other' } | { unreadable: string }> {
  const failed = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { skipped: 'other' as const } : { unreadable: code ?? 'EIO' };
  };
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    opened = await openRegular(path, { followLink: true, anyOwner: true });
  } catch (error) {
    return failed(error);
  }
  if (opened.kind !== 'file') return { skipped: 'other' };
  try {
    if (opened.size > limit) return { skipped: 'tooLarge' };
    // Up to the size it had, plus a byte: a file that grew past the limit meanwhile is too large.
    const bytes = await readHead(opened.file, Math.min(opened.size, limit));
    return bytes.length > limit ? { skipped: 'tooLarge' } : { bytes };
  } catch (error) {
    return failed(error);
  } finally {
    await opened.file.close().catch(() => {});
  }
}

/** Where a folder's ignore files are, to name one that could not be read. */
interface IgnoreSource {
  /** The folder, absolute. */
  folder: string;
  /** The folder as the report shows it; undefined above the paths given (not in the report). */
  shown?: string;
}

async function loadIgnoreLevel(
  source: IgnoreSource,
  files: readonly string[],
  counts: WalkCounts,
): Promise<IgnoreLevel | undefined> {
  const { join } = process.getBuiltinModule('node:path');
  const { folder } = source;
  const texts: string[] = [];
  for (const name of files) {
    const read = await readRegular(join(folder, name), MAX_IGNORE_FILE_BYTES);
    if ('bytes' in read) texts.push(read.bytes.toString('utf8'));
    // Its rules unknown, the files it would have left out are read: say so, as of any file unread.
    else if ('unreadable' in read)
      noteUnread(counts, join(source.shown ?? folder, name), unreadReason(read.unreadable));
    else if (read.skipped === 'tooLarge')
      noteCapped(counts, join(source.shown ?? folder, `${name} (over 1 MiB, not read)`));
  }
  if (!texts.length) return undefined;
  const { matcher, leftOut } = compileIgnore(texts.join('\n'));
  if (leftOut) {
    counts.ignoreRulesLeftOut += leftOut;
    noteCapped(counts, join(source.shown ?? folder, files.join(', ')));
  }
  return { folder, rules: matcher };
}

/**
 * Whether the rules ignore `path` (absolute): the deepest level with a rule about it decides, so a
 * `!negation` in a nested `.gitignore` brings back what a parent's rule left out.
 */
function isIgnored(levels: readonly IgnoreLevel[], path: string, isFolder: boolean): boolean {
  const { relative, sep } = process.getBuiltinModule('node:path');
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const rel = relative(level.folder, path).split(sep).join('/');
    if (!rel || rel.startsWith('..')) continue;
    const verdict = level.rules.test(rel, isFolder);
    if (verdict) return verdict === 'ignored';
  }
  return false;
}

/** Whether `folder` or a folder above it is ignored by `levels` (those above the paths given). */
function folderChainIgnored(levels: readonly IgnoreLevel[], folder: string): boolean {
  const { dirname } = process.getBuiltinModule('node:path');
  for (let at = folder, i = 0; i < MAX_ANCESTORS; at = dirname(at), i++) {
    if (isIgnored(levels, at, true)) return true;
    if (dirname(at) === at) break;
  }
  return false;
}

/**
 * The ignore levels above `start` up to its repository's top (a folder holding `.git`), top first,
 * with the repository's `.git/info/exclude` below its top-level `.gitignore` in precedence. None
 * when `start` is in no repository.
 */
async function ancestorLevels(fs: Fs, start: string, counts: WalkCounts): Promise<IgnoreLevel[]> {
  const { dirname, join } = process.getBuiltinModule('node:path');
  const chain: string[] = [];
  let folder = start;
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    chain.unshift(folder);
    const git = await fs.lstat(join(folder, '.git')).catch(() => undefined);
    if (git) {
      const levels: IgnoreLevel[] = [];
      const exclude = await loadIgnoreLevel({ folder: join(folder, '.git', 'info') }, ['exclude'], counts);
      if (exclude) levels.push({ folder, rules: exclude.rules });
      for (const above of chain.slice(0, -1)) {
        const level = await loadIgnoreLevel({ folder: above }, IGNORE_FILES, counts);
        if (level) levels.push(level);
      }
      return levels;
    }
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return [];
}

/**
 * The text files under `paths`, one at a time, in the order of `walkPaths`. `counts` is filled in
 * as the walk goes, reads included.
 */
export async function* walkFiles(
  paths: readonly string[],
  options: WalkOptions,
  counts: WalkCounts,
): AsyncGenerator<ScannedFile> {
  for await (const file of walkPaths(paths, options, counts)) {
    const read = readTextFile(file.absolute, options.maxFileSize, file.within);
    if ('skipped' in read) {
      if (read.skipped === 'unreadable') noteUnread(counts, file.path, unreadReason(read.code));
      else counts[read.skipped]++;
      continue;
    }
    counts.scanned++;
    yield { path: file.path, text: read.bytes.toString('utf8') };
  }
}

/**
 * The files to read under `paths`, one at a time, in a stable order (each folder's entries sorted
 * by name). `counts` is filled in as the walk goes, with what is not a regular file in the tree and
 * what could not be listed or is not there; what reading finds (too large, binary, unreadable) is the
 * reader's to count.
 */
export async function* walkPaths(
  paths: readonly string[],
  options: Pick<WalkOptions, 'skip'>,
  counts: WalkCounts,
): AsyncGenerator<WalkedFile> {
  const fs = nodeFs();
  const { basename, dirname, join, resolve } = process.getBuiltinModule('node:path');

  // The temp files of the baseline's writes too: one a killed write left holds every finding.
  const skipped = [...(options.skip ?? [])].map((file) => ({
    folder: dirname(file),
    temp: tempFileOf(basename(file)),
  }));
  const isSkipped = (absolute: string) =>
    options.skip?.has(absolute) ||
    skipped.some((file) => file.temp.test(basename(absolute)) && dirname(absolute) === file.folder);
  // A file reached through two of the paths given (`. src src/a.ts`) is read once, as first met.
  const seen = paths.length > 1 ? new Set<string>() : undefined;
  const scan = function* (
    shown: string,
    absolute: string,
    within?: string,
    key = absolute,
  ): Generator<WalkedFile> {
    if (skipped.length && isSkipped(absolute)) return;
    if (seen) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    yield { path: shown, absolute, within };
  };

  for (const given of paths) {
    const root = resolve(given);
    const argument = await pathArgument(root);
    if ('problem' in argument) {
      noteUnread(counts, given, argument.problem);
      continue;
    }
    if (argument.kind === 'file') {
      yield* scan(given, root);
      continue;
    }
    const realRoot = await fs.realpath(root);
    const inTree = (real: string) => isWithin(real, realRoot);
    const base = await ancestorLevels(fs, root, counts);
    // A folder given inside one the repository ignores is ignored with it, as git would have it.
    if (base.length && folderChainIgnored(base, root)) continue;
    // Depth first, by hand: each entry carries the ignore levels that apply below it.
    const stack: { shown: string; absolute: string; levels: IgnoreLevel[]; depth: number }[] = [
      { shown: given, absolute: root, levels: base, depth: 0 },
    ];
    while (stack.length) {
      const folder = stack.pop()!;
      let listed: Awaited<ReturnType<typeof listFolder>>;
      try {
        // The root as its real path: the user may name a link to a folder.
        listed = await listFolder(folder.depth ? folder.absolute : realRoot, realRoot);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') counts.other++;
        else noteUnread(counts, folder.shown, unreadReason(code ?? 'EIO'));
        continue;
      }
      if (listed === 'outside') {
        counts.other++;
        continue;
      }
      const entries = listed;
      // Only the ignore files the folder has: trying both in each of the bench tree's 2,100 folders
      // cost the main thread 210 ms of failed opens.
      const present = IGNORE_FILES.filter((name) => entries.some((entry) => entry.name === name));
      const own = present.length
        ? await loadIgnoreLevel({ folder: folder.absolute, shown: folder.shown }, present, counts)
        : undefined;
      const levels = own ? [...folder.levels, own] : folder.levels;
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const folders: typeof stack = [];
      for (const entry of entries) {
        const absolute = join(folder.absolute, entry.name);
        const shown = join(folder.shown, entry.name);
        // A name that is not UTF-8 comes back with U+FFFD in place of its bytes, and that name opens
        // nothing: say it was not read, rather than skip it unseen.
        if (entry.name.includes('\uFFFD') && !(await fs.lstat(absolute).catch(() => undefined))) {
          noteUnread(
            counts,
            shown,
            'its name is not UTF-8, which check cannot open: rename it to have it checked',
          );
          continue;
        }
        if (entry.isDirectory()) {
          if (NEVER_WALKED.has(entry.name) || isIgnored(levels, absolute, true)) continue;
          if (folder.depth + 1 > MAX_DEPTH) {
            counts.other++;
            continue;
          }
          folders.push({ shown, absolute, levels, depth: folder.depth + 1 });
          continue;
        }
        if (isIgnored(levels, absolute, false)) continue;
        if (entry.isSymbolicLink()) {
          const real = await fs.realpath(absolute).catch(() => undefined);
          const target = real && inTree(real) ? await fs.stat(real).catch(() => undefined) : undefined;
          if (!target?.isFile()) {
            counts.other++;
            continue;
          }
          yield* scan(shown, real!, realRoot, absolute);
          continue;
        }
        if (!entry.isFile()) {
          counts.other++;
          continue;
        }
        yield* scan(shown, absolute, realRoot);
      }
      // Reversed onto the stack, so that folders are walked in name order.
      stack.push(...folders.reverse());
    }
  }
}
