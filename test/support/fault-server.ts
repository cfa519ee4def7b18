/**
 * A loopback HTTP server whose behaviour each test scripts: statuses, resets, stalls, bodies of any
 * size. Records every request and notices when a client gives up on one (its socket closes).
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  attempt: number,
) => void | Promise<void>;

export interface FaultServer {
  url: string;
  requests: IncomingMessage[];
  /** Requests whose connection closed before the server finished answering. */
  abandoned: number;
  setHandler(handler: FaultHandler): void;
  close(): Promise<void>;
}

export async function startFaultServer(initial: FaultHandler): Promise<FaultServer> {
  let handler = initial;
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const state = { abandoned: 0 };
  const server = createServer((req, res) => {
    // The runner's idle warm-up (OPTIONS /, no key) only opens a connection: answered at once, and
    // not a request of the API, which is what the tests count and fault.
    if (req.method === 'OPTIONS' && req.headers.authorization === undefined) {
      res.writeHead(204).end();
      return;
    }
    requests.push(req);
    res.once('close', () => {
      if (!res.writableFinished) state.abandoned++;
    });
    Promise.resolve(handler(req, res, requests.length)).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get abandoned() {
      return state.abandoned;
    },
    setHandler: (next) => {
      handler = next;
      requests.length = 0;
      state.abandoned = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
