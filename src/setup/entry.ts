/** What `setup` writes for the server, whatever the client: its name, command, arguments and environment. */

import { ENV } from '../config.js';
import type * as Formats from './formats.js';

/** The name of our entry in every client's config. */
export const SERVER_NAME = 'model-feed';

export interface ServerEntry {
  command: string;
  args: string[];
  /**
   * MODEL_FEED_API_KEY (or the client's reference to a stored secret), MODEL_FEED_BASE_URL, and PATH
   * when npx needs it; for the public origins (`--source public` in args), neither key nor base URL.
   */
  env: Record<string, string>;
}

/**
 * The variables setup writes and so owns in our entry: one the new entry lacks is taken out of the
 * entry already there (an entry for the public origins keeps no key of an earlier keyed one). Any
 * other variable the user added stays.
 */
export const MANAGED_ENV: readonly string[] = [ENV.apiKey, ENV.baseUrl];

/** The managed variables an existing entry holds that `entry` does not: to be taken out. */
export function envToDrop(entry: Pick<ServerEntry, 'env'>): string[] {
  return MANAGED_ENV.filter((name) => !(name in entry.env));
}

/** The parsers, loaded once by the command from their own chunk. */
export type FormatLib = typeof Formats;

/** One config file format: parse → merge → print, and the way back. */
export interface FileFormat {
  /** The file's text with our entry added, or merged into the one already there; `text` is '' for a new file. */
  add(text: string, entry: ServerEntry, lib: FormatLib): string;
  /** The file's text without our entry; unchanged when it has none. */
  remove(text: string, lib: FormatLib): string;
}
