// For scripts/bench.mjs, never part of the package: a network that is not loopback-fast, on
// loopback. A CONNECT-only proxy that holds every byte `delayMs` in each direction (the CONNECT
// request and its answer included), so a round trip through it costs 2 x delayMs, and a TLS front
// that terminates HTTPS for a plain-HTTP service, with a private CA made by openssl for the run.
//
// Bounded: it listens on 127.0.0.1 only, tunnels only to the names it is given (each mapped to
// 127.0.0.1), reads at most 8 KB of request head, holds at most 32 connections, and drops a tunnel
// idle for 30 s. It does not apply backpressure: the bench's traffic is small.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const tls = require('node:tls');

const MAX_HEAD_BYTES = 8 * 1024;
const MAX_CONNECTIONS = 32;
const IDLE_MS = 30_000;

/** Writes `chunk` to `socket` after `delayMs`; same-delay timers fire in order, so bytes stay in order. */
function later(delayMs, socket, chunk) {
  setTimeout(() => {
    if (socket.destroyed) return;
    if (chunk === null) socket.end();
    else socket.write(chunk);
  }, delayMs);
}

/** Forwards `from` → `to`, each chunk (and the end) `delayMs` late. */
function delayedPipe(from, to, delayMs) {
  from.on('data', (chunk) => later(delayMs, to, chunk));
  from.once('end', () => later(delayMs, to, null));
}

/**
 * @param {{ delayMs: number, hosts: string[] }} options the names it tunnels to (on 127.0.0.1)
 * @returns {Promise<{ url: string, connects: string[], close(): Promise<void> }>}
 */
async function startDelayProxy({ delayMs, hosts }) {
  const allowed = new Set(hosts);
  const connects = [];
  const sockets = new Set();
  const track = (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    let head = Buffer.alloc(0);
    const onHead = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) client.destroy();
        return;
      }
      client.off('data', onHead);
      client.pause();
      const rest = head.subarray(end + 4);
      const [method, target = ''] = head.subarray(0, end).toString('latin1').split(' ', 2);
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon);
      const port = Number(target.slice(colon + 1));
      // The request itself travels delayMs to reach the proxy.
      setTimeout(() => {
        if (
          method !== 'CONNECT' ||
          !allowed.has(host) ||
          !Number.isInteger(port) ||
          port < 1 ||
          port > 65535
        ) {
          later(delayMs, client, 'HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
          later(delayMs, client, null);
          return;
        }
        connects.push(target);
        const upstream = net.connect(port, '127.0.0.1', () => {
          later(delayMs, client, 'HTTP/1.1 200 Connection Established\r\n\r\n');
          if (rest.length) upstream.write(rest);
          delayedPipe(client, upstream, delayMs);
          delayedPipe(upstream, client, delayMs);
          client.resume();
        });
        track(upstream);
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
      }, delayMs);
    };
    client.on('data', onHead);
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    connects,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A private CA and a certificate for `hostname` it signs, made fresh (nothing key-like is kept). */
function makeCertificates(hostname) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'model-feed-mcp-bench-certs-'));
  const file = (name) => path.join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=model-feed-mcp bench CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${hostname}`,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  fs.writeFileSync(file('ext.cnf'), `subjectAltName=DNS:${hostname}\nbasicConstraints=CA:FALSE\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('server.pem'),
  );
  return {
    dir,
    caFile: file('ca.pem'),
    cert: fs.readFileSync(file('server.pem'), 'utf8'),
    key: fs.readFileSync(file('server.key'), 'utf8'),
  };
}

/**
 * HTTPS on 127.0.0.1 in front of a plain-HTTP service at `targetPort`, with a certificate for
 * `hostname` from a fresh private CA (trust it with NODE_EXTRA_CA_CERTS=caFile).
 * @returns {Promise<{ port: number, caFile: string, close(): Promise<void> }>}
 */
async function startTlsFront({ hostname, targetPort }) {
  const certificates = makeCertificates(hostname);
  const sockets = new Set();
  const server = tls.createServer({ cert: certificates.cert, key: certificates.key }, (socket) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    caFile: certificates.caFile,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          fs.rmSync(certificates.dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

module.exports = { startDelayProxy, startTlsFront };
