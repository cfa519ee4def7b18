/**
 * `POST /api/mcp` on a local socket: the same MCP server as over stdio, behind the hosted
 * endpoint's bearer key, for clients that speak only HTTP in a network that cannot reach the
 * service. Streamable HTTP with JSON answers, through the SDK's transport.
 *
 * Both protocol eras. A request whose body carries the 2026-07-28 envelope (`_meta` with the
 * protocol version) goes to the SDK's `createMcpHandler`: stateless, one server per request, the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers checked against the body (400), and
 * `subscriptions/listen` streams over SSE with keep-alive comments. Everything else is 2025 traffic,
 * served with sessions and a session-less path beside them (legacy-sessions.ts).
 *
 * Order of checks: path, then Host/Origin (403, DNS rebinding), then the key (401, bearer-auth.ts),
 * then the body (413 past `maxBodyBytes`). A refusal before the key is accepted also ends the
 * connection. Nothing here writes to stdout.
 *
 * Connections are bounded too (connection-limits.ts): a socket must send a request's headers within
 * `headersTimeoutMs` and its body within `requestTimeoutMs`, and may sit idle between requests for
 * `idleTimeoutMs`. An answer or stream whose client reads nothing for `stalledWriteMs` is cut
 * (web.ts), so such a client cannot hold a connection for ever.
 */

import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type ProtocolEra,
  type Server,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { envelopeRevision, revisionRefusal } from '../protocol-revisions.js';
import type { ModernAdmission } from '../resources/listen.js';
import { endpointUrl, type ListenAddress, MCP_PATH } from './address.js';
import { bearerCheck } from './bearer-auth.js';
import { connectionLimits } from './connection-limits.js';
import { allowedAuthorities, hostOrOriginRefusal } from './host-check.js';
import { legacySessions } from './legacy-sessions.js';
import { refuse, sendJson, turnAway } from './replies.js';
import { methodOf, parsedBody, type ReadBody } from './request-body.js';
import { STALLED_WRITE_MS, sendWebResponse, toWebRequest } from './web.js';

export interface HttpEndpointOptions extends ListenAddress {
  /** A fresh MCP server for one era: one per 2025 session or session-less request, one per 2026 request. */
  createServer: (era: ProtocolEra) => Server;
  /** The one key accepted as `Authorization: Bearer <key>`. */
  key: string;
  /** Where the key comes from, for the 401 text: e.g. "the value of MODEL_FEED_API_KEY". */
  keyHint: string;
  log: Logger;
  /** Largest request body read; a larger one gets 413. @default 1 MiB */
  maxBodyBytes?: number;
  /** Open sessions kept at most; a new one closes the least recently used. @default 100 */
  maxSessions?: number;
  /** A session with no GET stream open and no request for this long is closed. @default 30 min */
  idleSessionMs?: number;
  /** Open connections at most; connection-limits.ts says what happens at the cap. @default 256 */
  maxConnections?: number;
  /** A connection that has not sent a request's headers in this long gets 408 and is closed. @default 10 s */
  headersTimeoutMs?: number;
  /** The same for a whole request, body included (not its answer, nor a stream). @default 30 s */
  requestTimeoutMs?: number;
  /** A connection idle between requests for this long is closed. @default 5 s */
  idleTimeoutMs?: number;
  /** How long requests in flight may take to finish on close before sockets are cut. @default 250 */
  closeGraceMs?: number;
  /** Comment frames on a quiet SSE stream, so that proxies keep it open. @default 15 s */
  keepAliveMs?: number;
  /**
   * An answer or stream whose socket stays too full to take a write for this long is cut: its client
   * reads nothing, and would hold a connection for ever. @default 30 s
   */
  stalledWriteMs?: number;
  /**
   * Connections past `maxConnections`, every one busy, whose request is read and answered 503 with
   * `retry-after`; past these too, a connection is closed unread. @default 64
   */
  maxRefusing?: number;
  /** What 2026 `subscriptions/listen` streams hear from. @default the SDK's in-process bus */
  bus?: ServerEventBus;
  /**
   * Looks at each 2026 message before the SDK reads it (resources/listen.ts: a listen is trimmed to
   * what is honoured, and refused when its polling cannot work). @default served as sent
   */
  admitModern?: (message: JSONRPCMessage) => Promise<ModernAdmission>;
}

export interface HttpEndpoint {
  /** e.g. http://127.0.0.1:8080/api/mcp */
  url: string;
  address: AddressInfo;
  /** Open sessions now. */
  readonly sessions: number;
  /** Closes every session, stops listening and cuts what is left after the grace period. */
  close(): Promise<void>;
}

export const HTTP_DEFAULTS = {
  maxBodyBytes: 1024 * 1024,
  maxSessions: 100,
  // A quarter of the usual descriptor limit: room for the upstream sockets, the cache and the log.
  maxConnections: 256,
  // A client on loopback or a LAN sends its headers in milliseconds and 1 MiB of body in well under
  // a second; Node's defaults (60 s, 300 s) let a silent socket hold a descriptor for minutes.
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
  idleSessionMs: 30 * 60_000,
  closeGraceMs: 250,
  keepAliveMs: 15_000,
  stalledWriteMs: STALLED_WRITE_MS,
  // A quarter of the cap again: room to tell a burst of clients to come back, still far from 1,024.
  maxRefusing: 64,
} as const;

const SESSION_HEADER = 'mcp-session-id';

function listen(server: HttpServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startHttpEndpoint(options: HttpEndpointOptions): Promise<HttpEndpoint> {
  const { log } = options;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const closeGraceMs = options.closeGraceMs ?? HTTP_DEFAULTS.closeGraceMs;
  const keepAliveMs = options.keepAliveMs ?? HTTP_DEFAULTS.keepAliveMs;
  const headersTimeoutMs = options.headersTimeoutMs ?? HTTP_DEFAULTS.headersTimeoutMs;
  const stalledWriteMs = options.stalledWriteMs ?? HTTP_DEFAULTS.stalledWriteMs;
  const reportTransportError = (error: Error) => log.debug('MCP transport', { error: error.message });
  // 2026-07-28: one server per request, from the same factory; 2025 traffic never reaches it.
  const modern = createMcpHandler(() => options.createServer('modern'), {
    legacy: 'reject',
    onerror: reportTransportError,
    maxRequestBodySize: maxBodyBytes,
    keepAliveMs,
    ...(options.bus && { bus: options.bus }),
  });
  const authenticate = bearerCheck(options.key, options.keyHint);
  const limits = connectionLimits({
    maxConnections: options.maxConnections ?? HTTP_DEFAULTS.maxConnections,
    maxRefusing: options.maxRefusing ?? HTTP_DEFAULTS.maxRefusing,
    log,
  });
  let allowed: ReadonlySet<string> = new Set();
  let closing: Promise<void> | undefined;

  /** Writes an answer or stream; one whose client reads nothing is cut (web.ts). */
  async function send(response: Response, res: ServerResponse): Promise<void> {
    if (!(await sendWebResponse(response, res, stalledWriteMs))) {
      log.info('cut an answer or stream its client does not read', { stalledWriteMs });
    }
  }

  const sessions = legacySessions({
    createServer: () => options.createServer('legacy'),
    log,
    maxSessions: options.maxSessions ?? HTTP_DEFAULTS.maxSessions,
    idleSessionMs: options.idleSessionMs ?? HTTP_DEFAULTS.idleSessionMs,
    maxBodyBytes,
    keepAliveMs,
    send,
    reportTransportError,
    closing: () => closing !== undefined,
  });

  async function serveModern(read: ReadBody, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const admit = options.admitModern;
    // A message that is not an object is left for the SDK to refuse.
    const single = typeof read.body === 'object' && read.body !== null && !Array.isArray(read.body);
    // Before the SDK, whose -32022 lists the enveloped revisions only; 400, as it answers. Only when
    // the MCP-Protocol-Version header names the same revision: a header that disagrees with the
    // body is the SDK's to refuse first (-32020), as it always was.
    const message = read.body as JSONRPCMessage;
    const unsupported =
      single && req.headers['mcp-protocol-version'] === envelopeRevision(message)
        ? revisionRefusal(message)
        : undefined;
    if (unsupported) {
      sendJson(res, 400, unsupported);
      return;
    }
    const admission =
      admit && single ? await admit(read.body as JSONRPCMessage) : { message: read.body as JSONRPCMessage };
    if ('refusal' in admission) {
      const id = (read.body as { id?: unknown }).id;
      sendJson(res, 200, { jsonrpc: '2.0', id: id ?? null, error: admission.refusal });
      return;
    }
    try {
      const request = toWebRequest(req, read.text, gone.signal);
      await send(await modern.fetch(request, { parsedBody: admission.message }), res);
    } finally {
      // A listen's stream has ended by now, or never opened.
      admission.served?.();
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) {
      turnAway(res, 404, `No endpoint at ${path}; the MCP endpoint is POST ${MCP_PATH}.`);
      return;
    }
    const refusal = hostOrOriginRefusal({ host: req.headers.host, origin: req.headers.origin }, allowed);
    if (refusal !== undefined) {
      log.info('refused a request from a foreign Host or Origin', {
        host: req.headers.host,
        origin: req.headers.origin,
      });
      turnAway(res, 403, refusal);
      return;
    }
    if (!authenticate(req, res)) return;
    limits.keyed(req.socket);
    if (closing) {
      refuse(res, 503, 'The server is shutting down.', { connection: 'close' });
      return;
    }
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      await sessions.serve(sessionId, req, res);
      return;
    }
    if (req.method !== 'POST') {
      const why =
        req.method === 'GET' || req.method === 'DELETE'
          ? `${req.method} needs the Mcp-Session-Id an initialize answer carries; without one, use POST.`
          : `${req.method} is not allowed on ${MCP_PATH}; use POST.`;
      refuse(res, 405, why, { allow: 'POST' });
      return;
    }
    const parsed = await parsedBody(req, res, maxBodyBytes);
    if (!parsed) return;
    // The body decides the era, as the SDK's own entry decides it.
    const legacy = await isLegacyRequest(toWebRequest(req, parsed.text), parsed.body);
    if (!legacy) await serveModern(parsed, req, res);
    else if (methodOf(parsed.body) === 'initialize') await sessions.open(parsed, req, res);
    else await sessions.once(parsed, req, res);
  }

  // Loaded here: the stdio server, which shares this bundle, never needs an HTTP server.
  const http = process.getBuiltinModule('node:http').createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? HTTP_DEFAULTS.requestTimeoutMs,
      keepAliveTimeout: options.idleTimeoutMs ?? HTTP_DEFAULTS.idleTimeoutMs,
      // Node looks at the two timeouts above only this often (every 30 s by default).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeoutMs / 4)),
    },
    (req, res) => {
      if (!limits.admit(req, res)) return;
      res.once('finish', () =>
        log.debug('http', { method: req.method, path: req.url, status: res.statusCode }),
      );
      route(req, res).catch((error: unknown) => {
        log.warn('MCP over HTTP: a request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!res.headersSent) refuse(res, 500, 'The request failed inside the server; see its log (stderr).');
        else res.destroy();
      });
    },
  );
  http.on('connection', limits.connected);
  const address = await listen(http, options.port, options.host);
  allowed = allowedAuthorities({ host: options.host, port: address.port });

  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Closing a session's server ends its GET stream and its subscription; the shared poller
      // stops with the last one.
      await Promise.allSettled([sessions.close(), modern.close()]);
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
        setTimeout(() => http.closeAllConnections(), closeGraceMs).unref();
      });
    })();
    return closing;
  };

  return {
    url: endpointUrl(address),
    address,
    get sessions() {
      return sessions.size;
    },
    close,
  };
}
