/**
 * Writing a client's config: a backup of the old file beside it, then the new text atomically,
 * user-only. The config now holds the key (the clients read it from there), so the old file's mode
 * is kept only for its owner's bits: a 0644 file becomes 0600, and so does its backup. A symlinked config (a dotfiles repo) is written through
 * the link, so the link stays a link. A byte-order mark (Windows editors write one) is set aside
 * while the config is edited and written back in front of it.
 */

import { constants } from 'node:fs';
import { nodeFs } from '../lazy-node.js';
import { FILE_MODE, writeFileAtomic } from '../store/atomic-file.js';

export interface ConfigFile {
  /** The path to write: the link's target when the config is a symlink. */
  path: string;
  /** undefined when the file does not exist yet. Without its byte-order mark, if it had one. */
  text: string | undefined;
  mode: number | undefined;
  /** The file began with a UTF-8 byte-order mark, which the JSONC and TOML parsers refuse. */
  bom?: boolean;
}

const BOM = '\uFEFF';

export async function readConfig(path: string): Promise<ConfigFile> {
  let target = path;
  try {
    target = await nodeFs().realpath(path);
  } catch {
    return { path, text: undefined, mode: undefined };
  }
  const [raw, info] = await Promise.all([nodeFs().readFile(target, 'utf8'), nodeFs().stat(target)]);
  const bom = raw.startsWith(BOM);
  return { path: target, text: bom ? raw.slice(BOM.length) : raw, mode: info.mode & 0o777, bom };
}

/** `<file>.<YYYYMMDD-HHMMSS>.bak`, never over an older backup. */
export function backupName(path: string, now: Date, attempt: number): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${path}.${stamp}${attempt ? `-${attempt}` : ''}.bak`;
}

/** Backs up the old file (if any) and writes the new text; resolves with the backup's path. */
export async function writeConfig(file: ConfigFile, text: string, now: Date): Promise<string | undefined> {
  let backup: string | undefined;
  if (file.text !== undefined) {
    for (let attempt = 0; backup === undefined; attempt++) {
      const name = backupName(file.path, now, attempt);
      try {
        await nodeFs().copyFile(file.path, name, constants.COPYFILE_EXCL);
        await nodeFs().chmod(name, userOnly(file.mode));
        backup = name;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw error;
      }
    }
  }
  await writeFileAtomic(file.path, file.bom ? BOM + text : text, { mode: userOnly(file.mode) });
  return backup;
}

/** The owner's read and write bits of `mode`, never the group's or others': 0600 when unknown. */
function userOnly(mode: number | undefined): number {
  return mode === undefined ? FILE_MODE : (mode & 0o700) | 0o600;
}
