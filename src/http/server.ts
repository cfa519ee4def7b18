/**
 * `POST /api/mcp` on a local socket: the same MCP server as over stdio, behind the hosted
 * endpoint's bearer key, for clients that speak only HTTP in a network that cannot reach the
 * service. Streamable HTTP with JSON answers, through the SDK's transport.
 *
 * Both protocol eras. A request whose body carries the 2026-07-28 envelope (`_meta` with the
 * protocol version) goes to the SDK's `createMcpHandler`: stateless, one server per request, the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers checked against the body (400), and
 * `subscriptions/listen` streams over SSE with keep-alive comments. Everything else is 2025 traffic,
 * served as before:
 *
 * Sessions, with a session-less path beside them:
 * - `initialize` opens a session (`Mcp-Session-Id`), one MCP server instance for it. A session is
 *   what lets the server speak first: `notifications/resources/updated` for a subscription travels
 *   on the session's GET stream, which a stateless endpoint cannot offer.
 * - A request with no session id that is not `initialize` is answered by a fresh server for that
 *   request alone, as the hosted endpoint and the sandbox answer: a one-shot `tools/call` from curl
 *   works the same on all three, given the `Accept: application/json, text/event-stream` the
 *   transport requires of every POST (without it, the SDK answers 406). `resources/subscribe` is
 *   refused there: its updates could only travel on a session's stream.
 * - Sessions are bounded: at most `maxSessions` (the least recently used goes first), and a session
 *   with no open GET stream and no request for `idleSessionMs` is closed (its subscriptions with
 *   it), so a client that vanished leaves no poller running. The client then gets 404 for that
 *   session id and, as the transport specification requires, starts a new one.
 *
 * Order of checks: path, then Host/Origin (403, DNS rebinding), then the key (401), then the body
 * (413 past `maxBodyBytes`). A refusal before the key is accepted also ends the connection. Nothing
 * here writes to stdout.
 *
 * Connections are bounded too, since each holds a descriptor and the common limit is 1,024: at most
 * `maxConnections`, and a socket must send a request's headers within `headersTimeoutMs` and its
 * body within `requestTimeoutMs`, and may sit idle between requests for `idleTimeoutMs`. At the
 * cap, a new connection closes the oldest idle one (one that never presented the key first), so
 * idle sockets without a key cannot lock a client with the key out; when every connection is busy
 * with a request or a stream, the new one's request is answered 503 with `retry-after` (at most
 * `maxRefusing` wait for that answer; past them a connection is closed unread). An answer or stream
 * whose client reads nothing for `stalledWriteMs` is cut (web.ts), so such a client cannot hold a
 * connection for ever.
 */

import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type ProtocolEra,
  type Server,
  type ServerEventBus,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { nodeCrypto } from '../lazy-node.js';
import type { Logger } from '../log.js';
import { envelopeRevision, revisionRefusal } from '../protocol-revisions.js';
import { endpointUrl, type ListenAddress, MCP_PATH } from './address.js';
import { allowedAuthorities, hostOrOriginRefusal } from './host-check.js';
import { answerWithoutSession, STALLED_WRITE_MS, sendWebResponse, toWebRequest } from './web.js';

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
  /** Open connections at most; see the header for what happens at the cap. @default 256 */
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

/** What `admitModern` decided: the message to serve, or an error to answer it with. */
export type ModernAdmission =
  | { message: JSONRPCMessage /** Called once its answer, or its stream, has ended. */; served?: () => void }
  | { refusal: { code: number; message: string } };

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

/**
 * What a 503 at the connection cap asks a client to wait, in seconds. A busy connection ends when its
 * client closes a stream or within the request timeout: no end is known, and a few seconds lets a
 * client come back soon without spinning.
 */
const AT_CAPACITY_RETRY_S = 5;

const SESSION_HEADER = 'mcp-session-id';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

interface Session {
  id: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** GET streams open now: a client holding one is alive, whatever its silence. */
  streams: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The service's Error body, as the hosted endpoint answers 401. */
const refuse = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) =>
  sendJson(res, status, { error: message }, headers);

/**
 * A refusal before the key was accepted: the connection ends with it, so that a client without the
 * key holds no socket (and no descriptor) for longer than one answer.
 */
const turnAway = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) =>
  refuse(res, status, message, { ...headers, connection: 'close' });

/** What the connection cap knows of one socket. */
interface Connection {
  /** Requests whose answer (or stream) is still open. */
  busy: number;
  /** A request on it presented the key. */
  keyed: boolean;
}

/** A JSON-RPC error with id null, as the SDK's transport answers transport-level failures. */
const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

const digest = (text: string): Buffer => nodeCrypto().createHash('sha256').update(text, 'utf8').digest();

/** A request read: its body as text and as JSON. */
interface ReadBody {
  text: string;
  body: unknown;
}

/** The request body as text, or `tooLarge` once it passes `max` bytes (declared or received). */
async function readBody(req: IncomingMessage, max: number): Promise<string | { tooLarge: true }> {
  if (Number(req.headers['content-length']) > max) return { tooLarge: true };
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > max) return { tooLarge: true };
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The method of a single JSON-RPC message; undefined for anything else. */
function methodOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as { method?: unknown }).method
    : undefined;
}

/**
 * Requests whose whole effect is what the server sends later, on a session's GET stream. Answered
 * without a session they would cost a poll and promise updates that could never arrive.
 */
const SESSION_ONLY: ReadonlySet<unknown> = new Set(['resources/subscribe']);

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
  const { log, keyHint } = options;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const maxSessions = options.maxSessions ?? HTTP_DEFAULTS.maxSessions;
  const idleSessionMs = options.idleSessionMs ?? HTTP_DEFAULTS.idleSessionMs;
  const closeGraceMs = options.closeGraceMs ?? HTTP_DEFAULTS.closeGraceMs;
  const keepAliveMs = options.keepAliveMs ?? HTTP_DEFAULTS.keepAliveMs;
  const maxConnections = options.maxConnections ?? HTTP_DEFAULTS.maxConnections;
  const headersTimeoutMs = options.headersTimeoutMs ?? HTTP_DEFAULTS.headersTimeoutMs;
  const stalledWriteMs = options.stalledWriteMs ?? HTTP_DEFAULTS.stalledWriteMs;
  const maxRefusing = options.maxRefusing ?? HTTP_DEFAULTS.maxRefusing;
  const reportTransportError = (error: Error) => log.debug('MCP transport', { error: error.message });
  // 2026-07-28: one server per request, from the same factory; 2025 traffic never reaches it.
  const modern = createMcpHandler(() => options.createServer('modern'), {
    legacy: 'reject',
    onerror: reportTransportError,
    maxRequestBodySize: maxBodyBytes,
    keepAliveMs,
    ...(options.bus && { bus: options.bus }),
  });
  // Compared as SHA-256 digests: equal lengths, so timingSafeEqual applies and the time taken
  // says nothing about how much of a guess was right.
  const keyDigest = digest(options.key);
  const sessions = new Map<string, Session>();
  /** Every open socket, oldest first (a Map keeps insertion order). */
  const connections = new Map<Socket, Connection>();
  /** Sockets past the cap, each to be told so once its request is read. */
  const refusing = new Set<Socket>();
  let allowed: ReadonlySet<string> = new Set();
  let closing: Promise<void> | undefined;

  const closeSession = (id: string, why: string): void => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    log.debug('MCP session closed', { why, sessions: sessions.size });
    void session.server.close().catch(() => {});
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.streams === 0 && now - session.lastSeen > idleSessionMs) closeSession(session.id, 'idle');
      }
    },
    Math.min(60_000, Math.max(10, idleSessionMs / 4)),
  );
  sweep.unref();

  function authenticate(req: IncomingMessage, res: ServerResponse): boolean {
    const header = req.headers.authorization?.trim();
    const challenge = { 'www-authenticate': 'Bearer' };
    if (!header) {
      turnAway(
        res,
        401,
        `Missing Authorization header: send "Authorization: Bearer <key>" with ${keyHint}.`,
        challenge,
      );
      return false;
    }
    const presented = BEARER.exec(header)?.[1];
    if (presented === undefined) {
      turnAway(
        res,
        401,
        `Malformed Authorization header: expected "Bearer <key>" with ${keyHint}.`,
        challenge,
      );
      return false;
    }
    if (!nodeCrypto().timingSafeEqual(digest(presented), keyDigest)) {
      turnAway(res, 401, `Key not accepted: send "Authorization: Bearer <key>" with ${keyHint}.`, challenge);
      return false;
    }
    return true;
  }

  /** Writes an answer or stream; one whose client reads nothing is cut (web.ts). */
  async function send(response: Response, res: ServerResponse): Promise<void> {
    if (!(await sendWebResponse(response, res, stalledWriteMs))) {
      log.info('cut an answer or stream its client does not read', { stalledWriteMs });
    }
  }

  /** Reads and parses a POST body; answers 413 or 400 itself and returns undefined then. */
  async function parsedBody(req: IncomingMessage, res: ServerResponse): Promise<ReadBody | undefined> {
    const text = await readBody(req, maxBodyBytes);
    if (typeof text !== 'string') {
      // The rest of the body is never read: the connection ends with this answer.
      refuse(res, 413, `Request body larger than ${maxBodyBytes} bytes; MCP messages are small.`, {
        connection: 'close',
      });
      return undefined;
    }
    try {
      return { text, body: JSON.parse(text) };
    } catch {
      rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      return undefined;
    }
  }

  /** Hands a request to a 2025 transport and writes its answer; a stream stays open as long as it runs. */
  async function handOver(
    transport: WebStandardStreamableHTTPServerTransport,
    req: IncomingMessage,
    res: ServerResponse,
    read?: ReadBody,
  ): Promise<void> {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const request = toWebRequest(req, read?.text, gone.signal);
    const response = await transport.handleRequest(request, read && { parsedBody: read.body });
    await send(response, res);
  }

  async function serveSession(session: Session, req: IncomingMessage, res: ServerResponse): Promise<void> {
    session.lastSeen = Date.now();
    if (req.method === 'GET') {
      session.streams += 1;
      res.once('close', () => {
        session.streams -= 1;
        session.lastSeen = Date.now();
      });
      await handOver(session.transport, req, res);
      return;
    }
    if (req.method === 'POST') {
      const parsed = await parsedBody(req, res);
      if (parsed) await handOver(session.transport, req, res, parsed);
    } else {
      await handOver(session.transport, req, res);
    }
    session.lastSeen = Date.now();
  }

  async function openSession(read: ReadBody, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (sessions.size >= maxSessions) {
      const oldest = [...sessions.values()].reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
      closeSession(oldest.id, `more than ${maxSessions} sessions`);
    }
    const server = options.createServer('legacy');
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => nodeCrypto().randomUUID(),
      enableJsonResponse: true,
      keepAliveMs,
      onsessioninitialized: (id) => {
        session = { id, server, transport, lastSeen: Date.now(), streams: 0 };
        sessions.set(id, session);
        log.debug('MCP session opened', { sessions: sessions.size });
      },
      onsessionclosed: (id) => closeSession(id, 'closed by the client'),
    });
    transport.onerror = reportTransportError;
    try {
      await server.connect(transport);
      await handOver(transport, req, res, read);
    } finally {
      // An initialize that was refused or failed opened no session: nothing may keep its server.
      if (session === undefined || closing) void server.close().catch(() => {});
    }
  }

  async function serveOnce(read: ReadBody, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = methodOf(read.body);
    if (SESSION_ONLY.has(method)) {
      const id = (read.body as { id?: unknown }).id ?? null;
      sendJson(res, 200, {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32600,
          message: `${method} needs a session: send initialize first, then ${method} with the Mcp-Session-Id header its answer carries; updates arrive on that session's GET stream.`,
        },
      });
      return;
    }
    const server = options.createServer('legacy');
    res.once('close', () => void server.close().catch(() => {}));
    const request = toWebRequest(req, read.text);
    await send(await answerWithoutSession(server, request, read.body, reportTransportError), res);
  }

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
    const connection = connections.get(req.socket);
    if (connection) connection.keyed = true;
    if (closing) {
      refuse(res, 503, 'The server is shutting down.', { connection: 'close' });
      return;
    }
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session) await serveSession(session, req, res);
      // The transport specification's answer: the client must start a new session.
      else rpcError(res, 404, -32001, 'Session not found: it ended or expired; send initialize again.');
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
    const parsed = await parsedBody(req, res);
    if (!parsed) return;
    // The body decides the era, as the SDK's own entry decides it.
    const legacy = await isLegacyRequest(toWebRequest(req, parsed.text), parsed.body);
    if (!legacy) await serveModern(parsed, req, res);
    else if (methodOf(parsed.body) === 'initialize') await openSession(parsed, req, res);
    else await serveOnce(parsed, req, res);
  }

  /** The answer past the cap: come back later; the connection ends with it. */
  function refuseAtCapacity(res: ServerResponse): void {
    log.info('refused a request: every connection is busy', { maxConnections });
    sendJson(
      res,
      503,
      {
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Every one of the ${maxConnections} connections this server keeps is busy with a request or a stream; retry after ${AT_CAPACITY_RETRY_S} s.`,
        },
        id: null,
      },
      { 'retry-after': String(AT_CAPACITY_RETRY_S), connection: 'close' },
    );
  }

  /** Closes the oldest idle connection, one that never presented the key first; false when all are busy. */
  function makeRoom(): boolean {
    let oldestIdle: Socket | undefined;
    for (const [socket, connection] of connections) {
      if (connection.busy > 0) continue;
      if (!connection.keyed) {
        oldestIdle = socket;
        break;
      }
      oldestIdle ??= socket;
    }
    if (oldestIdle === undefined) return false;
    connections.delete(oldestIdle);
    oldestIdle.destroy();
    return true;
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
      if (refusing.has(req.socket)) {
        refuseAtCapacity(res);
        return;
      }
      const connection = connections.get(req.socket);
      if (connection) {
        connection.busy += 1;
        res.once('close', () => {
          connection.busy -= 1;
        });
      }
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
  http.on('connection', (socket: Socket) => {
    if (connections.size >= maxConnections && !makeRoom()) {
      // Told, not reset: its request is read (within the headers timeout) and answered 503. Only
      // past as many again does the descriptor limit come first, and it is closed unread.
      if (refusing.size >= maxRefusing) {
        log.debug('closed a connection unread: every connection is busy', { maxConnections, maxRefusing });
        socket.destroy();
        return;
      }
      refusing.add(socket);
      socket.once('close', () => refusing.delete(socket));
      return;
    }
    connections.set(socket, { busy: 0, keyed: false });
    socket.once('close', () => connections.delete(socket));
  });
  const address = await listen(http, options.port, options.host);
  allowed = allowedAuthorities({ host: options.host, port: address.port });

  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      // Closing a session's server ends its GET stream and its subscription; the shared poller
      // stops with the last one.
      await Promise.allSettled([...open.map((session) => session.server.close()), modern.close()]);
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
