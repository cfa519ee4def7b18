/** What `setup` writes for the server, whatever the client: its name, command, arguments and environment. */

import type * as Formats from './formats.js';

/** The name of our entry in every client's config. */
export const SERVER_NAME = 'model-feed';

export interface ServerEntry {
  command: string;
  args: string[];
  /** MODEL_FEED_API_KEY (or the client's reference to a stored secret), MODEL_FEED_BASE_URL, and PATH when npx needs it. */
  env: Record<string, string>;
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
