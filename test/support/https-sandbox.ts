/** The sandbox service behind TLS, with a certificate from a private CA. */

import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSandboxApp, type SandboxApp } from '../../src/sandbox/app.js';
import { buildDataset } from '../../src/sandbox/dataset.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';

export interface HttpsSandbox {
  app: SandboxApp;
  port: number;
  close(): Promise<void>;
}

export async function startHttpsSandbox(
  tls: { cert: string; key: string },
  apiKey: string,
): Promise<HttpsSandbox> {
  const app = createSandboxApp({ dataset: buildDataset(loadBundledData()), now: Date.now });
  app.keys.add(apiKey, 'free');
  const server = createServer({ cert: tls.cert, key: tls.key }, app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
