/**
 * Connections are bounded, since each holds a descriptor and the common limit is 1,024: at most
 * `maxConnections`. At the cap, a new connection closes the oldest idle one (one that never
 * presented the key first), so idle sockets without a key cannot lock a client with the key out;
 * when every connection is busy with a request or a stream, the new one's request is answered 503
 * with `retry-after` (at most `maxRefusing` wait for that answer; past them a connection is closed
 * unread).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';
import { sendJson } from './replies.js';

/**
 * What a 503 at the connection cap asks a client to wait, in seconds. A busy connection ends when its
 * client closes a stream or within the request timeout: no end is known, and a few seconds lets a
 * client come back soon without spinning.
 */
const AT_CAPACITY_RETRY_S = 5;

/** What the connection cap knows of one socket. */
interface Connection {
  /** Requests whose answer (or stream) is still open. */
  busy: number;
  /** A request on it presented the key. */
  keyed: boolean;
}

export interface ConnectionLimits {
  /** A socket accepted by the HTTP server: kept, kept to be refused, or closed. */
  connected(socket: Socket): void;
  /** A request arriving: false when it was answered 503 (its connection past the cap). */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /** The request on this socket presented the key. */
  keyed(socket: Socket): void;
}

export function connectionLimits(options: {
  maxConnections: number;
  maxRefusing: number;
  log: Logger;
}): ConnectionLimits {
  const { maxConnections, maxRefusing, log } = options;
  /** Every open socket, oldest first (a Map keeps insertion order). */
  const connections = new Map<Socket, Connection>();
  /** Sockets past the cap, each to be told so once its request is read. */
  const refusing = new Set<Socket>();

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

  return {
    connected(socket) {
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
    },
    admit(req, res) {
      if (refusing.has(req.socket)) {
        refuseAtCapacity(res);
        return false;
      }
      const connection = connections.get(req.socket);
      if (connection) {
        connection.busy += 1;
        res.once('close', () => {
          connection.busy -= 1;
        });
      }
      return true;
    },
    keyed(socket) {
      const connection = connections.get(socket);
      if (connection) connection.keyed = true;
    },
  };
}
