/**
 * What the server is built from. Its own module so that the tools, resources, prompts and
 * completions that server.ts registers can name it without importing server.ts back.
 */

import type { FeedApi } from './api/client.js';
import type { Logger } from './log.js';

export interface ServerDeps {
  api: FeedApi;
  log: Logger;
  version: string;
  /** Every result says it is sample data (the `--sandbox` mode). */
  sampleData?: boolean;
  /** Values no result text may show (Config.secrets): an error quoting a setting, an upstream echo. */
  secrets?: readonly string[];
  /**
   * Whether clients may subscribe to `model-feed://changes`: false where no session can carry the
   * updates (the sandbox's stateless /api/mcp). @default true
   */
  subscriptions?: boolean;
  /** `--watch-interval`: seconds between polls while `model-feed://changes` is subscribed; else from the tier. */
  watchIntervalS?: number | undefined;
}
