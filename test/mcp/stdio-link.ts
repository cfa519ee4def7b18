/**
 * A real SDK `Client` linked to a server over our StdioTransport, in memory: two pipes carry the
 * JSON lines both ways, so what the server hears goes through the transport (and its activity)
 * exactly as from a spawned process, without one.
 */

import { PassThrough } from 'node:stream';
import { Client, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { type Logger, silentLogger } from '../../src/log.js';
import { StdioTransport, type StdioTransportOptions } from '../../src/stdio/transport.js';

/** The client's end: writes each message as a line, reads the server's lines. */
class LineClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending = '';

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
      for (let newline = this.pending.indexOf('\n'); newline !== -1; newline = this.pending.indexOf('\n')) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

export interface StdioLink {
  transport: StdioTransport;
  /** A client on the other end; `connect` it (or call `connectClient`) to open the session. */
  clientTransport: Transport;
  /** Connects a fresh SDK client: initialize and notifications/initialized, as a client does. */
  connectClient(): Promise<Client>;
  /** Ends the server's input, as a client that exits does. */
  endInput(): void;
}

/** The server connected (by `connect`) to a StdioTransport whose other end is a client transport. */
export async function linkOverStdio(
  connect: (transport: StdioTransport) => Promise<void>,
  { log = silentLogger, ...options }: StdioTransportOptions & { log?: Logger } = {},
): Promise<StdioLink> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const transport = new StdioTransport(toServer, fromServer, log, options);
  await connect(transport);
  const clientTransport = new LineClientTransport(toServer, fromServer);
  return {
    transport,
    clientTransport,
    async connectClient() {
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(clientTransport);
      return client;
    },
    endInput: () => toServer.end(),
  };
}
