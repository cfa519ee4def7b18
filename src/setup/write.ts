/**
 * Reading and writing a client's config. A read opens without blocking and checks the open file
 * itself (fstat), so a FIFO or a device at the path is refused at once instead of hanging, and
 * nothing can swap the file between the check and the read. A write backs up the old file beside
 * it, then replaces it atomically with the mode the caller chose, keeping its owner and group:
 * root configuring another user's HOME must not leave that user with files they cannot read. A
 * file setup creates, and any folder on the way, belongs to the owner of the folder it is made in.
 * A symlinked config (a dotfiles repo) is written through the link, so the link stays a link. A
 * byte-order mark (Windows editors write one) is set aside while the config is edited and written
 * back in front of it.
 */

import { constants, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { nodeFs } from '../lazy-node.js';
import { FILE_MODE, FOLDER_MODE } from '../store/atomic-file.js';
import { UnusableFileError } from './problems.js';
import { copyWhole, replaceFile, type WriteGuard, WriteStopped } from './replace-file.js';

export interface Owner {
  uid: number;
  gid: number;
}

export interface ConfigFile {
  /** The path to write: the link's target when the config is a symlink. */
  path: string;
  /** undefined when the file does not exist yet. Without its byte-order mark, if it had one. */
  text: string | undefined;
  mode: number | undefined;
  /** The file's owner and group, kept when it is rewritten; undefined for a new file. */
  owner: Owner | undefined;
  /** The file began with a UTF-8 byte-order mark, which the JSONC and TOML parsers refuse. */
  bom?: boolean;
  /** What tells this version of the file from a later one; undefined when there was no file. */
  version?: FileVersion;
}

/** Identity, size and modification time: another program's write changes at least one. */
export interface FileVersion {
  ino: number;
  size: number;
  mtimeMs: number;
}

const versionOf = (info: Stats): FileVersion => ({ ino: info.ino, size: info.size, mtimeMs: info.mtimeMs });

/** The file was written by another program after setup read it: setup's edit would undo that write. */
export class FileChanged extends Error {
  override name = 'FileChanged';
}

/** Throws FileChanged when `file` on disk is no longer the version that was read. */
async function checkUnchanged(file: ConfigFile): Promise<void> {
  let now: FileVersion | undefined;
  try {
    now = versionOf(await nodeFs().stat(file.path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const then = file.version;
  const same =
    now === undefined || then === undefined
      ? now === then
      : now.ino === then.ino && now.size === then.size && now.mtimeMs === then.mtimeMs;
  if (!same) throw new FileChanged(`${file.path} changed since setup read it`);
}

const BOM = '\uFEFF';

/** Larger than any client's config (Claude Code's ~/.claude.json, the largest, grows to a few MB). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * The text and facts of the regular file at `path`, read without blocking. `follow`: a symlink
 * there is followed (the user's own link) rather than refused (a name setup chose).
 */
export async function readRegularFile(
  path: string,
  { follow }: { follow: boolean },
): Promise<{ raw: string; info: Stats }> {
  // Windows has neither flag (nor FIFOs to block on).
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0));
  const handle = await nodeFs().open(path, flags);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UnusableFileError(`${path} is ${kindOf(info)}, not a regular file`);
    if (info.size > MAX_CONFIG_BYTES) {
      const bytes = (n: number): string => n.toLocaleString('en-US');
      throw new UnusableFileError(
        `${path} is ${bytes(info.size)} bytes, more than the ${bytes(MAX_CONFIG_BYTES)} (${MAX_CONFIG_BYTES / 1024 / 1024} MiB) setup reads`,
      );
    }
    return { raw: await readBounded(handle, info.size), info };
  } finally {
    await handle.close();
  }
}

/** The whole file, refused if it grew past MAX_CONFIG_BYTES since it was measured. */
async function readBounded(handle: FileHandle, size: number): Promise<string> {
  const buffer = Buffer.alloc(Math.min(size, MAX_CONFIG_BYTES) + 1);
  let filled = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
    if (filled === buffer.length) {
      throw new UnusableFileError(
        `the file grew past ${MAX_CONFIG_BYTES / 1024 / 1024} MB while it was read`,
      );
    }
  }
  return buffer.toString('utf8', 0, filled);
}

export async function readConfig(path: string): Promise<ConfigFile> {
  let target: string;
  try {
    target = await nodeFs().realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { path, text: undefined, mode: undefined, owner: undefined };
  }
  const { raw, info } = await readRegularFile(target, { follow: true });
  const bom = raw.startsWith(BOM);
  return {
    path: target,
    text: bom ? raw.slice(BOM.length) : raw,
    mode: info.mode & 0o777,
    owner: { uid: info.uid, gid: info.gid },
    bom,
    version: versionOf(info),
  };
}

/**
 * Why `file` must not be rewritten, or undefined. A file its owner made read-only is the user's
 * choice, and a rename would replace it regardless (renaming needs only the folder's write
 * permission), leaving a writable file in its place. Root may write anything, so for root the mode
 * alone tells; for anyone else, whether the system lets this user write the file.
 */
export async function readOnlyProblem(file: ConfigFile): Promise<string | undefined> {
  if (file.mode === undefined) return undefined;
  const mode = file.mode.toString(8).padStart(4, '0');
  if ((file.mode & 0o200) === 0) {
    return `${file.path} is read-only (mode ${mode}); left it alone. To let setup change it, make it writable (chmod u+w ${file.path}), then run setup again.`;
  }
  if (process.platform === 'win32' || process.getuid?.() === 0) return undefined;
  try {
    await nodeFs().access(file.path, constants.W_OK);
    return undefined;
  } catch {
    return `${file.path} is read-only for this user (mode ${mode}, owner uid ${file.owner?.uid}); left it alone. Run setup as the user the file belongs to, or make it writable for this one.`;
  }
}

/** `<file>.<YYYYMMDD-HHMMSS>.bak`, never over an older backup. */
export function backupName(path: string, now: Date, attempt: number): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${path}.${stamp}${attempt ? `-${attempt}` : ''}.bak`;
}

/** The owner's read and write bits of `mode`, never the group's or others': 0600 when unknown. */
export function userOnly(mode: number | undefined): number {
  return mode === undefined ? FILE_MODE : (mode & 0o700) | 0o600;
}

/**
 * Gives a file (or folder) we made to `owner`. Only root can give a file away: for anyone else the
 * file is already theirs, and a group they are not in cannot be set, so that is left as it comes.
 */
async function giveTo(
  target: { stat(): Promise<Stats>; chown(uid: number, gid: number): Promise<void> },
  owner: Owner,
): Promise<void> {
  if (process.platform === 'win32') return;
  const info = await target.stat();
  if (info.uid === owner.uid && info.gid === owner.gid) return;
  try {
    await target.chown(owner.uid, owner.gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM' || process.getuid?.() === 0) throw error;
  }
}

const atPath = (path: string) => ({
  stat: () => nodeFs().stat(path),
  chown: (uid: number, gid: number) => nodeFs().chown(path, uid, gid),
});

/**
 * Creates `folder` and its missing parents (user-only, as the store's folders) and gives each to the
 * owner of the nearest folder that was already there; resolves with that owner. Bounded by the
 * path's depth.
 */
async function ensureOwnedFolder(folder: string): Promise<Owner> {
  const missing: string[] = [];
  let at = folder;
  let owner: Owner | undefined;
  while (owner === undefined) {
    try {
      const info = await nodeFs().stat(at);
      owner = { uid: info.uid, gid: info.gid };
    } catch (error) {
      const up = dirname(at);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || up === at) throw error;
      missing.unshift(at);
      at = up;
    }
  }
  for (const made of missing) {
    try {
      await nodeFs().mkdir(made, { mode: FOLDER_MODE });
    } catch (error) {
      // Made meanwhile by someone else: theirs, not ours to give away.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    await giveTo(atPath(made), owner);
  }
  return owner;
}

export interface WritePlan {
  /** The new file's mode. */
  mode: number;
  /** The backup's mode; no backup when undefined (or when there was no file). */
  backupMode: number | undefined;
}

/**
 * Backs up the old file (if asked) and writes the new text; resolves with the backup's path. A
 * write that `guard` stops before the rename takes its backup back too: the file is as it was. So
 * does one that finds, just before the rename, that another program wrote the file since it was
 * read (FileChanged): that version is kept, not replaced by an edit of the one before it.
 */
export async function writeConfig(
  file: ConfigFile,
  text: string,
  now: Date,
  plan: WritePlan,
  guard: WriteGuard,
): Promise<string | undefined> {
  const owner = file.owner ?? (await ensureOwnedFolder(dirname(file.path)));
  let backup: string | undefined;
  if (file.text !== undefined && plan.backupMode !== undefined) {
    const backupMode = plan.backupMode;
    for (let attempt = 0; backup === undefined; attempt++) {
      const name = backupName(file.path, now, attempt);
      try {
        await copyWhole(file.path, name, guard, async (temp) => {
          await nodeFs().chmod(temp, backupMode);
          await giveTo(atPath(temp), owner);
        });
        backup = name;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw error;
      }
    }
  }
  try {
    // The temp file gets its owner before the rename: never seen with the wrong one.
    await replaceFile(file.path, file.bom ? BOM + text : text, plan.mode, guard, {
      prepare: (temp) => giveTo(temp, owner),
      beforeRename: () => checkUnchanged(file),
    });
  } catch (error) {
    const undone = error instanceof WriteStopped || error instanceof FileChanged;
    if (undone && backup !== undefined) await nodeFs().rm(backup, { force: true });
    throw error;
  }
  return backup;
}
