/**
 * The bin's V8 code cache (bin/load-bundle.cjs), written at a stdio session's quiet moments. The
 * cache holds what has been compiled so far, so it is worth writing once the first `tools/list` or
 * tool call has been answered, and soon: a client that ends its servers with SIGKILL gives no exit
 * to write it at. Making it is synchronous (createCachedData, 4–13 ms measured), so it waits for a
 * quiet moment (quiet-moments.ts): only a request arriving within those few milliseconds can wait
 * for it.
 */

import type { Logger } from './log.js';
import { type ObservedTransport, withQuietMoments } from './quiet-moments.js';

/** Answers after which the session has compiled what serving needs: these make a cache worth it. */
const WORTH_CACHING: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

/** What the bin's loader offers (bin/load-bundle.cjs); absent when the bundle is loaded otherwise. */
export interface CodeCache {
  /**
   * What V8 made of the cache at load: used it, refused it (another build or flags), found none, or
   * `unavailable` (no build hash to key it by: nothing is read or written).
   */
  readonly loaded: 'accepted' | 'rejected' | 'missing' | 'unavailable';
  /** Whether a later quiet moment could still write or refresh the cache in this session. */
  readonly pending: boolean;
  /** Writes the cache if there is none, or refreshes it if it has grown; never throws. */
  quietMoment(): CodeCacheWrite | undefined;
}

export interface CodeCacheWrite {
  reason: 'first' | 'refresh';
  bytes: number;
  file: string;
}

/** The server with the code cache written at its quiet moments, and what happened logged at debug. */
export function withCodeCache<T extends ObservedTransport>(
  server: { connect(transport: T): Promise<void> },
  codeCache: CodeCache | undefined,
  log: Logger,
): { connect(transport: T): Promise<void> } {
  if (!codeCache) return server;
  log.debug('V8 code cache', { loaded: codeCache.loaded });
  if (!codeCache.pending) return server;
  return withQuietMoments(
    server,
    () => {
      const written = codeCache.quietMoment();
      if (written) log.debug('V8 code cache written', { ...written });
      return codeCache.pending;
    },
    { after: WORTH_CACHING },
  );
}
