/**
 * The hosted tool endpoint, `POST /api/mcp`, as the sandbox serves it: the runner's own MCP server
 * (same tool definitions, same handlers), stateless in both protocol eras, with JSON answers: a
 * 2026-07-28 request (its body carries the envelope) through the SDK's `createMcpHandler`, a 2025
 * one through a transport of its own, as `--http` answers one without a session. Each request
 * calls this sandbox's REST API with the caller's key, as the hosted endpoint calls the service's.
 * Host and Origin are checked before it (app.ts, against DNS rebinding), as `--http` checks them.
 * The callers of `startSandbox` that serve it pass it in (server.ts says why).
 */

import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { createApiClient } from '../api/client.js';
import { DEFAULTS } from '../config.js';
import { unavailableReason } from '../describe-error.js';
import { answerWithoutSession, sendWebResponse, toWebRequest } from '../http/web.js';
import { silentLogger } from '../log.js';
import { createServer } from '../mcp-server.js';
import { USER_AGENT, VERSION } from '../version.js';
import type { SandboxMcpHandler } from './service.js';

/** MCP messages are small; the SDK answers 413 past this. */
const MAX_BODY_BYTES = 1024 * 1024;

export const serveMcpEndpoint: SandboxMcpHandler = async (req, res, key, baseUrl) => {
  const api = createApiClient({
    baseUrl,
    apiKey: key,
    fetch: (url, init) => globalThis.fetch(url, init),
    userAgent: USER_AGENT,
    describeUnavailable: unavailableReason,
    timeoutMs: DEFAULTS.timeoutMs,
    // A fresh server per request: there is nothing to cache across requests.
    cacheTtlMs: 0,
    proxyLabel: undefined,
    log: silentLogger,
  });
  const deps = { api, log: silentLogger, version: VERSION, subscriptions: false };
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const request = toWebRequest(req, undefined, gone.signal);
  // A body past the bound reads as modern, where the SDK answers 413.
  if (await isLegacyRequest(request, undefined, { maxRequestBodySize: MAX_BODY_BYTES })) {
    const server = createServer(deps, 'legacy');
    res.once('close', () => void server.close().catch(() => {}));
    await sendWebResponse(await answerWithoutSession(server, request, undefined, () => {}), res);
    return;
  }
  // Answers are JSON: the tools send nothing before their result ('auto' streams only then).
  const handler = createMcpHandler(() => createServer(deps, 'modern'), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  res.once('close', () => void handler.close());
  await sendWebResponse(await handler.fetch(request), res);
};
