/**
 * The I/O behind the DNS, TCP and TLS checks: what the HTTP client does on its first request,
 * one step at a time so that a failure names its step, each step bounded by its own time limit.
 * Every function either resolves, rejects with a Node error (which carries a `code`) or one of
 * probe-errors.ts, or rejects with ProbeTimeoutError: none can hang.
 */

import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { nodeFs } from '../lazy-node.js';
import { bareHost } from '../net/loopback.js';
import type { ExtraCaFile } from './ca-check.js';
import { ProbeTimeoutError, TunnelRefusedError } from './probe-errors.js';

/** Settles like `work`, or rejects with ProbeTimeoutError after `timeoutMs`, calling `abandon` first. */
function withTimeout<T>(work: Promise<T>, timeoutMs: number, abandon: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new ProbeTimeoutError(timeoutMs));
    }, timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Errors that name no code of their own get one, so every failure can be reported by code. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * The addresses of `host`, by `dns.lookup` (getaddrinfo), as sockets resolve names. A lookup
 * cannot be cancelled: past the limit it is reported and abandoned (the OS resolver ends it).
 */
export async function lookupHost(host: string, timeoutMs: number): Promise<string[]> {
  const { lookup } = process.getBuiltinModule('node:dns/promises');
  const found = await withTimeout(lookup(host, { all: true }), timeoutMs, () => {});
  return found.map((entry) => entry.address);
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
function secureChannel(socket: Socket, host: string, timeoutMs: number): Promise<TLSSocket> {
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
      const statusLine = received.subarray(0, received.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status < 200 || status > 299) {
        reject(new TunnelRefusedError(status, statusLine));
      } else if (end + 4 < received.length) {
        // A TLS server never speaks first: bytes here mean something else answered.
        reject(codedError('the proxy sent data before the TLS handshake began', 'EPROTO'));
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
 * Asks the proxy on `socket` for a tunnel to `authority` (host:port), as undici's proxy agent
 * does: credentials from the proxy URL go as Proxy-Authorization Basic. Resolves with the socket
 * to speak TLS over: `socket` itself, or the TLS channel to an https:// proxy.
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

export interface TlsFacts {
  /** The issuer's common name (or organisation) of the service's certificate. */
  issuer: string | undefined;
  /** e.g. TLSv1.3 */
  protocol: string | null;
}

/** The TLS handshake with the service, SNI and certificate check for `host`; closes it after. */
export async function handshake(socket: Socket, host: string, timeoutMs: number): Promise<TlsFacts> {
  const secure = await secureChannel(socket, host, timeoutMs);
  try {
    const { issuer } = secure.getPeerCertificate();
    // A name field that occurs more than once arrives as an array.
    const name = issuer?.CN || issuer?.O;
    return { issuer: (Array.isArray(name) ? name[0] : name) || undefined, protocol: secure.getProtocol() };
  } finally {
    secure.destroy();
  }
}

/** NODE_EXTRA_CA_CERTS as Node would find it: readable or not, and how many certificates it holds. */
export async function readExtraCaFile(path: string): Promise<ExtraCaFile> {
  try {
    const pem = await nodeFs().readFile(path, 'utf8');
    return { path, certificates: pem.split('-----BEGIN CERTIFICATE-----').length - 1 };
  } catch (error) {
    return { path, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}
