/**
 * A forwarding HTTP proxy on loopback that only tunnels (CONNECT), like most corporate proxies.
 * It resolves host names from its own table, so a name only it knows proves the traffic went
 * through it. Records every CONNECT and its Proxy-Authorization; can require credentials (407).
 */

import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ConnectRecord {
  target: string;
  proxyAuthorization: string | undefined;
}

export interface TestProxy {
  url: string;
  port: number;
  connects: ConnectRecord[];
  close(): Promise<void>;
}

export async function startProxy(options: {
  hosts: Record<string, string>;
  /** `user:password` the proxy demands, or undefined for an open proxy. */
  credentials?: string;
}): Promise<TestProxy> {
  const connects: ConnectRecord[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' }).end('this proxy only tunnels (CONNECT)');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const proxyAuthorization = req.headers['proxy-authorization'];
    connects.push({ target, proxyAuthorization });
    const expected = options.credentials && `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    if (expected && proxyAuthorization !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      return;
    }
    const [host = '', port = '443'] = target.split(':');
    const address = options.hosts[host];
    if (!address) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
