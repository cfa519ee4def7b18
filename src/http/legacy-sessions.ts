/**
 * 2025 traffic, with sessions and a session-less path beside them:
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
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { nodeCrypto } from '../lazy-node.js';
import type { Logger } from '../log.js';
import { rpcError, sendJson } from './replies.js';
import { methodOf, parsedBody, type ReadBody } from './request-body.js';
import { answerWithoutSession, toWebRequest } from './web.js';

interface Session {
  id: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** GET streams open now: a client holding one is alive, whatever its silence. */
  streams: number;
}

/**
 * Requests whose whole effect is what the server sends later, on a session's GET stream. Answered
 * without a session they would cost a poll and promise updates that could never arrive.
 */
const SESSION_ONLY: ReadonlySet<unknown> = new Set(['resources/subscribe']);

export interface LegacySessionsOptions {
  /** A fresh 2025 MCP server: one per session or session-less request. */
  createServer: () => Server;
  log: Logger;
  maxSessions: number;
  idleSessionMs: number;
  maxBodyBytes: number;
  keepAliveMs: number;
  /** Writes an answer or stream (the endpoint cuts one whose client reads nothing). */
  send: (response: Response, res: ServerResponse) => Promise<void>;
  reportTransportError: (error: Error) => void;
  /** Whether the endpoint is closing: a session opened then is not kept. */
  closing: () => boolean;
}

export interface LegacySessions {
  /** Open sessions now. */
  readonly size: number;
  /** A request carrying `Mcp-Session-Id`: served by its session, or 404 when there is none. */
  serve(sessionId: string, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** An `initialize`: a new session. */
  open(read: ReadBody, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Any other POST without a session: a server for this request alone. */
  once(read: ReadBody, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Closes every session's server, which ends its GET stream and its subscriptions. */
  close(): Promise<void>;
}

export function legacySessions(options: LegacySessionsOptions): LegacySessions {
  const { log, maxSessions, idleSessionMs, keepAliveMs, send, reportTransportError } = options;
  const sessions = new Map<string, Session>();

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
      const parsed = await parsedBody(req, res, options.maxBodyBytes);
      if (parsed) await handOver(session.transport, req, res, parsed);
    } else {
      await handOver(session.transport, req, res);
    }
    session.lastSeen = Date.now();
  }

  return {
    get size() {
      return sessions.size;
    },
    async serve(sessionId, req, res) {
      const session = sessions.get(sessionId);
      if (session) await serveSession(session, req, res);
      // The transport specification's answer: the client must start a new session.
      else rpcError(res, 404, -32001, 'Session not found: it ended or expired; send initialize again.');
    },
    async open(read, req, res) {
      if (sessions.size >= maxSessions) {
        const oldest = [...sessions.values()].reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
        closeSession(oldest.id, `more than ${maxSessions} sessions`);
      }
      const server = options.createServer();
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
        if (session === undefined || options.closing()) void server.close().catch(() => {});
      }
    },
    async once(read, req, res) {
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
      const server = options.createServer();
      res.once('close', () => void server.close().catch(() => {}));
      const request = toWebRequest(req, read.text);
      await send(await answerWithoutSession(server, request, read.body, reportTransportError), res);
    },
    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.server.close()));
    },
  };
}
