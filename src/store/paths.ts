/**
 * Where the runner keeps files of its own, per platform, under a `model-feed-mcp` folder:
 * - state (the watch cursor): `$XDG_STATE_HOME` or `~/.local/state`; macOS `~/Library/Application
 *   Support`; Windows `%LOCALAPPDATA%`.
 * - cache: `$XDG_CACHE_HOME` or `~/.cache`; macOS `~/Library/Caches`; Windows `%LOCALAPPDATA%`.
 * Pure: the environment, platform and home folder are passed in by the caller.
 */

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConfigError } from '../errors.js';

export const APP_FOLDER = 'model-feed-mcp';

export interface PlatformFacts {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
}

/** An XDG variable counts only when it holds an absolute path (the XDG spec says to ignore others). */
function xdg(env: PlatformFacts['env'], name: string): string | undefined {
  const value = env[name]?.trim();
  return value && isAbsolute(value) ? value : undefined;
}

function windowsLocal({ env, home }: PlatformFacts): string {
  return env.LOCALAPPDATA?.trim() || join(home, 'AppData', 'Local');
}

export function stateFolder(facts: PlatformFacts): string {
  if (facts.platform === 'win32') return join(windowsLocal(facts), APP_FOLDER, 'State');
  if (facts.platform === 'darwin') return join(facts.home, 'Library', 'Application Support', APP_FOLDER);
  return join(xdg(facts.env, 'XDG_STATE_HOME') ?? join(facts.home, '.local', 'state'), APP_FOLDER);
}

export function cacheFolder(facts: PlatformFacts): string {
  if (facts.platform === 'win32') return join(windowsLocal(facts), APP_FOLDER, 'Cache');
  if (facts.platform === 'darwin') return join(facts.home, 'Library', 'Caches', APP_FOLDER);
  return join(xdg(facts.env, 'XDG_CACHE_HOME') ?? join(facts.home, '.cache'), APP_FOLDER);
}

/**
 * The user's home folder, or a ConfigError naming HOME when the system cannot give it (on Linux,
 * a HOME longer than a path may be: libuv answers ENOBUFS). The value itself is not quoted: it is
 * what is wrong, and may be kilobytes long.
 */
export function homeFolder(): string {
  try {
    return homedir();
  } catch (error) {
    const code = (error as { info?: { code?: string } }).info?.code ?? (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `The home folder cannot be read (${code ?? 'unknown error'}): HOME must be the path of a folder, of at most 4,096 characters. Set HOME to your home folder (e.g. export HOME=/home/you).`,
      'HOME',
    );
  }
}
