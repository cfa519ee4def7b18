/**
 * What the server is built from. Its own module so that the tools, resources, prompts and
 * completions that server.ts registers can name it without importing server.ts back.
 */

import type { FeedApi } from './api/client.js';
import type { DataSource } from './api/data-source.js';
import type { Audience } from './audience.js';
import type { Logger } from './log.js';
import type { ChangesSubscriptions } from './resources/changes-subscriptions.js';

export interface ServerDeps {
  api: FeedApi;
  log: Logger;
  version: string;
  /** Every result says it is sample data (the `--sandbox` mode). */
  sampleData?: boolean;
  /**
   * Where answers come from, with `--source public` or `sample`: every tool result's
   * `structuredContent` carries it as `dataSource`. Absent for the service, whose results stay as sent.
   */
  dataSource?: () => DataSource;
  /** Values no result text may show (Config.secrets): an error quoting a setting, an upstream echo. */
  secrets?: readonly string[];
  /**
   * Whether clients may subscribe to `model-feed://changes`: false where no session can carry the
   * updates (the sandbox's stateless /api/mcp). @default true
   */
  subscriptions?: boolean;
  /**
   * Who reads the error texts: the MCP client (a model and its user) or a person at a shell
   * (`call`). It decides where a fix says to set a variable. @default 'client'
   */
  audience?: Audience;
  /** `--watch-interval`: seconds between polls while `model-feed://changes` is subscribed; else from the tier. */
  watchIntervalS?: number | undefined;
  /**
   * Subscribers to `model-feed://changes` shared by every server built from these deps, so that
   * they share one poller (`--http`: one server per session), which carries its own interval.
   * @default a set, and a poller, per server (stdio: the one client)
   */
  changeSubscriptions?: ChangesSubscriptions;
}
