/**
 * Resources beside the tools: `model-feed://changes` (subscribable) and the template
 * `model-feed://models/{id}`. One module per resource; this file lists them, dispatches reads and
 * keeps the sessions' subscriptions. Reads go through the same API client, cache and coalescing
 * as the tools, and spend the same upstream calls as the matching tool.
 */

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AbortedError } from '../errors.js';
import { RESOURCE_NOT_FOUND, requestError, toRequestError } from '../request-errors.js';
import type { ServerDeps } from '../server-deps.js';
import { inline } from '../text/change-line.js';
import { CHANGES_URI, changesResource, readRecentChanges } from './changes.js';
import { ChangesSubscriptions } from './changes-subscriptions.js';
import { MODEL_URI_TEMPLATE, modelIdFromUri, modelTemplate, modelUri, readModel } from './model.js';

export { CHANGES_URI } from './changes.js';
export { MODEL_URI_TEMPLATE, modelUri } from './model.js';

const RESOURCES = [changesResource];
const TEMPLATES = [modelTemplate];

function notFound(uri: string): Error {
  return requestError(
    RESOURCE_NOT_FOUND,
    `Resource not found: ${inline(uri)}. This server has ${CHANGES_URI} and ${MODEL_URI_TEMPLATE} (the id's slash percent-encoded, e.g. ${modelUri('openai/gpt-4o')}).`,
    { uri },
  );
}

function json(uri: string, value: unknown, deps: ServerDeps): ReadResourceResult {
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }],
    // The key server.ts puts on tool results (SAMPLE_DATA_META_KEY), spelled out: importing it
    // from server.ts would make a cycle of modules.
    ...(deps.sampleData && { _meta: { 'modelFeed/sampleData': true } }),
  };
}

export async function readResource(
  deps: ServerDeps,
  uri: string,
  signal: AbortSignal,
): Promise<ReadResourceResult> {
  try {
    if (uri === CHANGES_URI) return json(uri, await readRecentChanges(deps.api, signal), deps);
    const id = modelIdFromUri(uri);
    if (id !== undefined) return json(uri, await readModel(deps.api, uri, id, signal), deps);
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
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    if (uri !== CHANGES_URI) {
      throw requestError(
        ErrorCode.InvalidParams,
        `Cannot subscribe to ${inline(uri)}: only ${CHANGES_URI} sends updates.`,
        { uri },
      );
    }
    // The first poll sets the cursor: every change after this answer is announced.
    const wasSubscribed = subscriptions.has(notify);
    const cancelled = new Promise<undefined>((resolve) => {
      extra.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    const fatal = await Promise.race([subscriptions.subscribe(notify), cancelled]);
    if (extra.signal.aborted) {
      // A subscribe cancelled before its answer leaves no subscription behind (the SDK sends nothing).
      if (!wasSubscribed) subscriptions.unsubscribe(notify);
      throw new AbortedError();
    }
    if (fatal) {
      subscriptions.unsubscribe(notify);
      throw toRequestError(fatal, 'resources/subscribe', extra.signal, deps);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
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

export function registerResources(server: Server, deps: ServerDeps): void {
  // Declared only where updates can reach the client: a stateless endpoint (the sandbox's
  // /api/mcp) has no session to send them on.
  const subscribe = deps.subscriptions !== false;
  server.registerCapabilities({ resources: { subscribe } });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    readResource(deps, request.params.uri, extra.signal),
  );
  if (subscribe) registerSubscriptions(server, deps);
}
