/**
 * Resources beside the tools: `model-feed://changes` (subscribable) and the template
 * `model-feed://models/{id}`. One module per resource; this file lists them, dispatches reads and
 * keeps the sessions' subscriptions. Reads go through the same API client, cache and coalescing
 * as the tools, and spend the same upstream calls as the matching tool.
 */

import {
  type CacheHint,
  type ProtocolEra,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
} from '@modelcontextprotocol/server';
import { AbortedError } from '../errors.js';
import type { ServerDeps } from '../mcp-server-deps.js';
import { requestError, toRequestError } from '../request-errors.js';
import { inline } from '../text/change-line.js';
import { changesFreshMs, readHint } from './cache-hints.js';
import { CHANGES_URI, changesResource, readRecentChanges } from './changes.js';
import { ChangesSubscriptions } from './changes-subscriptions.js';
import { MODEL_URI_TEMPLATE, modelIdFromUri, modelTemplate, modelUri, readModel } from './model.js';
import { type LegacyNotFoundCodes, ResourceNotFound } from './not-found.js';

export { CHANGES_URI } from './changes.js';
export { MODEL_URI_TEMPLATE, modelUri } from './model.js';

const RESOURCES = [changesResource];
const TEMPLATES = [modelTemplate];

function notFound(uri: string): Error {
  return new ResourceNotFound(
    uri,
    `Resource not found: ${inline(uri)}. This server has ${CHANGES_URI} and ${MODEL_URI_TEMPLATE} (the id's slash percent-encoded, e.g. ${modelUri('openai/gpt-4o')}).`,
  );
}

function json(uri: string, value: unknown, deps: ServerDeps, hint?: CacheHint): ReadResourceResult {
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }],
    ...hint,
    // The key server.ts puts on tool results (SAMPLE_DATA_META_KEY), spelled out: importing it
    // from server.ts would make a cycle of modules.
    ...(deps.sampleData && { _meta: { 'modelFeed/sampleData': true } }),
  };
}

/**
 * One read. With `hinted` (a 2026-07-28 request) the result carries its cache hint (cache-hints.ts);
 * a 2025 result carries none, as before.
 */
export async function readResource(
  deps: ServerDeps,
  uri: string,
  signal: AbortSignal,
  hinted = false,
): Promise<ReadResourceResult> {
  try {
    if (uri === CHANGES_URI) {
      const page = await readRecentChanges(deps.api, signal);
      const now = Date.now();
      const hint = hinted ? readHint(now + changesFreshMs(deps.api, deps.watchIntervalS), now) : undefined;
      return json(uri, page, deps, hint);
    }
    const id = modelIdFromUri(uri);
    if (id !== undefined) {
      // The read is as fresh as the least fresh answer it was made of.
      let freshUntil = Number.POSITIVE_INFINITY;
      const onFreshUntil = (until: number) => {
        freshUntil = Math.min(freshUntil, until);
      };
      const model = await readModel(deps.api, uri, id, signal, { onFreshUntil });
      return json(uri, model, deps, hinted ? readHint(freshUntil, Date.now()) : undefined);
    }
  } catch (error) {
    throw toRequestError(error, `resources/read ${uri}`, signal, deps);
  }
  throw notFound(uri);
}

/**
 * Subscriptions of one session. Only `model-feed://changes` can be followed. The session joins the
 * subscribers the deps share (`--http`: every session's), else a set of its own; it leaves with
 * its unsubscribe or its end, and the poller stops with the last subscriber to leave.
 */
function registerSubscriptions(server: Server, deps: ServerDeps): void {
  const subscriptions =
    deps.changeSubscriptions ??
    new ChangesSubscriptions({ api: deps.api, log: deps.log, intervalS: deps.watchIntervalS });
  const notify = () => {
    server.sendResourceUpdated({ uri: CHANGES_URI }).catch((error: unknown) => {
      deps.log.debug('resource update not sent', { error: String(error) });
    });
  };
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const { uri } = request.params;
    if (uri !== CHANGES_URI) {
      throw requestError(
        ProtocolErrorCode.InvalidParams,
        `Cannot subscribe to ${inline(uri)}: only ${CHANGES_URI} sends updates.`,
        { uri },
      );
    }
    // The first poll sets the cursor: every change after this answer is announced.
    const wasSubscribed = subscriptions.has(notify);
    const signal = ctx.mcpReq.signal;
    const cancelled = new Promise<undefined>((resolve) => {
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    const fatal = await Promise.race([subscriptions.subscribe(notify), cancelled]);
    if (signal.aborted) {
      // A subscribe cancelled before its answer leaves no subscription behind (the SDK sends nothing).
      if (!wasSubscribed) subscriptions.unsubscribe(notify);
      throw new AbortedError();
    }
    if (fatal) {
      subscriptions.unsubscribe(notify);
      throw toRequestError(fatal, 'resources/subscribe', signal, deps);
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    if (request.params.uri === CHANGES_URI) subscriptions.unsubscribe(notify);
    return {};
  });
  // Whoever else set onclose keeps it; a session that ends is no longer subscribed.
  const previous = server.onclose;
  server.onclose = () => {
    subscriptions.unsubscribe(notify);
    previous?.();
  };
}

/**
 * `era`: a 2026-07-28 server's reads carry cache hints; a 2025 one's never do. `notFound`: where a
 * 2025 server marks the reads it answers "not found", to send them with 2025-11-25's code.
 */
export function registerResources(
  server: Server,
  deps: ServerDeps,
  era: ProtocolEra,
  notFound?: LegacyNotFoundCodes,
): void {
  // Declared only where updates can reach the client: a stateless endpoint (the sandbox's
  // /api/mcp) has no session to send them on.
  const subscribe = deps.subscriptions !== false;
  server.registerCapabilities({ resources: { subscribe } });
  server.setRequestHandler('resources/list', () => ({ resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    try {
      return await readResource(deps, request.params.uri, ctx.mcpReq.signal, era === 'modern');
    } catch (error) {
      if (error instanceof ResourceNotFound) notFound?.mark(ctx.mcpReq.id, ctx.mcpReq.signal);
      throw error;
    }
  });
  if (subscribe) registerSubscriptions(server, deps);
}
