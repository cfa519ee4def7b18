/**
 * How a client should start the server, decided from how this copy was started:
 * - through npx (the script runs from npm's `_npx` cache, or npm says `exec`): `npx -y
 *   model-feed-mcp`; on Windows `cmd /c npx …` (npx is a .cmd script, which clients cannot spawn
 *   without a shell); and where npx lives outside the PATH a GUI app gets (nvm, Homebrew, Volta…),
 *   npx by absolute path with its folder put first on PATH, so its `#!/usr/bin/env node` finds node.
 * - from a global install or a clone: this Node and this copy's bin by absolute path, so the entry
 *   works before the package is on the registry and never updates behind the user's back.
 * Pure: every fact is passed in.
 */

import { posix, win32 } from 'node:path';
import { PACKAGE_NAME, ranThroughNpx } from '../own-command.js';
import type { ServerEntry } from './entry.js';

export interface LaunchFacts {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The script this process runs (process.argv[1]), symlinks resolved. */
  script: string | undefined;
  /** The Node running it (process.execPath). */
  nodePath: string;
  /** Absolute path of `name` on PATH, or undefined (see findOnPath). */
  which(name: string): string | undefined;
}

export type Launch = Pick<ServerEntry, 'command' | 'args' | 'env'> & {
  /** One line for the user: which form, and why. */
  how: string;
};

/** Folders on the PATH a GUI app gets from the system (launchd on macOS, the session on Linux). */
const GUI_PATH: Partial<Record<NodeJS.Platform, readonly string[]>> = {
  darwin: ['/usr/bin', '/bin', '/usr/sbin', '/sbin'],
  linux: ['/usr/local/bin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/sbin', '/sbin'],
};

export function launchFor(facts: LaunchFacts): Launch {
  const windows = facts.platform === 'win32';
  if (ranThroughNpx(facts)) {
    if (windows) {
      return {
        command: 'cmd',
        args: ['/c', 'npx', '-y', PACKAGE_NAME],
        env: {},
        how: 'npx (through cmd /c on Windows)',
      };
    }
    const npx = facts.which('npx');
    const folder = npx === undefined ? undefined : posix.dirname(npx);
    const guiPath = GUI_PATH[facts.platform] ?? GUI_PATH.linux!;
    if (npx === undefined || folder === undefined || guiPath.includes(folder)) {
      return { command: 'npx', args: ['-y', PACKAGE_NAME], env: {}, how: 'npx' };
    }
    return {
      command: npx,
      args: ['-y', PACKAGE_NAME],
      env: { PATH: [folder, ...guiPath.filter((p) => !p.endsWith('sbin'))].join(':') },
      how: `npx by absolute path (${folder} is not on the PATH apps started from the desktop get)`,
    };
  }
  if (facts.script === undefined) {
    return { command: 'npx', args: ['-y', PACKAGE_NAME], env: {}, how: 'npx (this copy’s path is unknown)' };
  }
  return {
    command: facts.nodePath,
    args: [facts.script],
    env: {},
    how: `this copy by absolute path (${facts.script}), run by ${facts.nodePath}`,
  };
}

/**
 * The first executable `name` on `env.PATH`, as a shell would find it; on Windows with the
 * extensions of PATHEXT. `isFile` is the check (fs in production, a fake in tests).
 */
export function findOnPath(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  isFile: (path: string) => boolean,
): string | undefined {
  const windows = platform === 'win32';
  const paths = windows ? win32 : posix;
  const pathVar = windows
    ? (Object.entries(env).find(([k]) => k.toUpperCase() === 'PATH')?.[1] ?? '')
    : (env.PATH ?? '');
  const extensions = windows ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const folder of pathVar.split(windows ? ';' : ':')) {
    if (!folder || !paths.isAbsolute(folder)) continue;
    for (const ext of extensions) {
      const candidate = paths.join(folder, name + ext.toLowerCase());
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}
