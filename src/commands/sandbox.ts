/** `model-feed-mcp sandbox`: the sandbox service in the foreground, until Ctrl+C. */

import type { CliIo } from '../cli.js';
import { ConfigError } from '../errors.js';
import { isLoopbackHost } from '../net/loopback.js';
import { startSandbox } from '../sandbox/server.js';

export interface SandboxFlags {
  port?: string | undefined;
  host?: string | undefined;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const port = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new ConfigError(
      `--port must be a whole number from 0 to 65535 (0 picks a free port); got "${raw}".`,
      'port',
      '--port',
    );
  }
  return port;
}

/** Starts the sandbox and resolves once it has stopped (SIGINT or SIGTERM). */
export async function runSandbox(flags: SandboxFlags, io: CliIo): Promise<number> {
  const port = parsePort(flags.port);
  const host = flags.host?.trim() || '127.0.0.1';
  const chosenKey = io.env.MODEL_FEED_API_KEY?.trim() || undefined;
  const sandbox = await startSandbox({
    port,
    host,
    key: chosenKey,
    log: (level, message) => {
      if (level !== 'debug') io.stderr(`sandbox ${level}: ${message}\n`);
    },
  });
  if (!isLoopbackHost(host)) {
    io.stderr(
      `sandbox warn: bound to ${host}, reachable from other machines; anyone with the key can call it.\n`,
    );
  }
  const keyLine = chosenKey
    ? 'the value of MODEL_FEED_API_KEY'
    : `${sandbox.key}   (generated, shown once; set MODEL_FEED_API_KEY to choose it)`;
  io.stdout(
    [
      'Model Change Feed sandbox: sample data, not the live service.',
      `  base URL  ${sandbox.url}`,
      `  API key   ${keyLine}`,
      `  REST      ${sandbox.url}/api/v1/changes, /api/v1/models, /api/v1/models/{slug}/history`,
      `  MCP       POST ${sandbox.url}/api/mcp (Authorization: Bearer <key>)`,
      'Use it from the runner: MODEL_FEED_BASE_URL=<base URL> MODEL_FEED_API_KEY=<key> model-feed-mcp',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sandbox.close();
  return 0;
}
