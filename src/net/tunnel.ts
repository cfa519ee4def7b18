/**
 * A tunnel through a forwarding proxy (HTTP CONNECT), one step at a time, each bounded by its own
 * time limit: TCP to the proxy, TLS to it when the proxy URL is https://, then CONNECT. The proxied
 * fetch (fetch.ts) opens its connections this way, and `doctor` runs the same steps to name the
 * one that fails. Every function resolves, or rejects with a Node error (which carries a `code`),
 * TunnelRefusedError or StepTimeoutError: none can hang.
 */

import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { oneLine } from '../text/terminal.js';
import { bareHost } from './loopback.js';

/** A step that did not finish within its own time limit. */
export class StepTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The proxy answered CONNECT with something other than 2xx (407: it wants credentials). */
export class TunnelRefusedError extends Error {
  readonly code = 'PROXY_REFUSED';
  constructor(
    readonly status: number,
    readonly statusLine: string,
  ) {
    super(`the proxy refused the tunnel: it answered CONNECT with "${statusLine}"`);
  }
}

/** Settles like `work`, or rejects with StepTimeoutError after `timeoutMs`, calling `abandon` first. */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, abandon: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new StepTimeoutError(timeoutMs));
    }, timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Errors that name no code of their own get one, so every failure can be reported by code. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

export function openTcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  const socket = process.getBuiltinModule('node:net').connect({ host, port });
  const connected = new Promise<Socket>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      // Each later step listens for the errors it causes; this keeps one arriving between steps
      // from crashing the process.
      socket.on('error', () => {});
      resolve(socket);
    });
  });
  return withTimeout(connected, timeoutMs, () => socket.destroy()).catch((error: unknown) => {
    socket.destroy();
    throw error;
  });
}

/** TLS over an open socket, the certificate verified against Node's roots (plus NODE_EXTRA_CA_CERTS). */
export function secureChannel(socket: Socket, host: string, timeoutMs: number): Promise<TLSSocket> {
  // SNI carries names only: an IP address there is against RFC 6066 (and Node warns).
  const secure = process
    .getBuiltinModule('node:tls')
    .connect({ socket, host, servername: isIP(host) ? undefined : host });
  const ready = new Promise<TLSSocket>((resolve, reject) => {
    secure.once('error', reject);
    secure.once('secureConnect', () => {
      secure.off('error', reject);
      secure.on('error', () => {});
      resolve(secure);
    });
  });
  return withTimeout(ready, timeoutMs, () => secure.destroy()).catch((error: unknown) => {
    secure.destroy();
    throw error;
  });
}

// A proxy's answer to CONNECT is a status line and a few headers; more than this is not one.
const MAX_CONNECT_ANSWER_BYTES = 16 * 1024;

function readConnectAnswer(channel: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const stop = (): void => {
      channel.off('data', onData);
      channel.off('error', onError);
      channel.off('close', onClose);
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    const onClose = (): void =>
      onError(codedError('the proxy closed the connection before answering CONNECT', 'ECONNRESET'));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) {
        if (received.length > MAX_CONNECT_ANSWER_BYTES) {
          onError(codedError('the proxy sent no end of its CONNECT answer', 'EPROTO'));
        }
        return;
      }
      stop();
      // The proxy's own words, shown to the user: one line, no control characters, cut short.
      const statusLine = oneLine(
        received.subarray(0, Math.min(received.indexOf('\r\n'), 200)).toString('latin1'),
      );
      const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status < 200 || status > 299) {
        reject(new TunnelRefusedError(status, statusLine));
      } else if (end + 4 < received.length) {
        // Neither a TLS nor an HTTP server speaks first: bytes here mean something else answered.
        reject(codedError('the proxy sent data before the tunnel was used', 'EPROTO'));
      } else {
        resolve();
      }
    };
    channel.on('data', onData);
    channel.once('error', onError);
    channel.once('close', onClose);
  });
}

/**
 * Asks the proxy on `socket` for a tunnel to `authority` (host:port): credentials from the proxy
 * URL go as Proxy-Authorization Basic, as curl and undici send them. Resolves with the socket to
 * speak over: `socket` itself, or the TLS channel to an https:// proxy.
 */
export async function openTunnel(
  socket: Socket,
  proxy: URL,
  authority: string,
  timeoutMs: number,
): Promise<Socket> {
  const proxyHost = bareHost(proxy.hostname);
  const channel = proxy.protocol === 'https:' ? await secureChannel(socket, proxyHost, timeoutMs) : socket;
  const head = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxy.username || proxy.password) {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    head.push(`Proxy-Authorization: Basic ${Buffer.from(credentials).toString('base64')}`);
  }
  const answered = readConnectAnswer(channel);
  channel.write(`${head.join('\r\n')}\r\n\r\n`);
  await withTimeout(answered, timeoutMs, () => channel.destroy());
  return channel;
}

/** The default port of a proxy URL that names none. */
export function proxyPort(proxy: URL): number {
  return Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
}
