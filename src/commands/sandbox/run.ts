/** `model-feed-mcp sandbox`: the sandbox service in the foreground, until Ctrl+C. */

import { ConfigError } from '../../errors.js';
import { defaultIntervalS } from '../../feed/schedule.js';
import { parseBindHost } from '../../http/address.js';
import type { CliIo } from '../../io.js';
import { isLoopbackHost } from '../../net/loopback.js';
import type { Tier } from '../../sandbox/keys.js';
import { serveMcpEndpoint } from '../../sandbox/mcp-endpoint.js';
import { DAILY_LIMITS } from '../../sandbox/quota.js';
import { startSandbox } from '../../sandbox/service.js';
import { echoValue } from '../../text/redact.js';

export interface SandboxFlags {
  port?: string | undefined;
  host?: string | undefined;
  /** Seconds between two published changes; absent: the feed does not grow. */
  live?: string | undefined;
  /** Tier of the key it accepts: `free` or `pro`; absent: pro with `live`, else free. */
  tier?: string | undefined;
}

/** A day: a longer interval would look like a sandbox that never publishes. */
const MAX_LIVE_S = 86_400;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const port = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new ConfigError(
      `--port must be a whole number from 0 to 65535 (0 picks a free port); got "${echoValue(raw, [])}".`,
      'port',
      '--port',
    );
  }
  return port;
}

/** `--live <seconds>` as milliseconds between publications; undefined when the flag is absent. */
function parseLive(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const seconds = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  // Below a millisecond would round to a timer of 0 ms.
  if (!(seconds >= 0.001 && seconds <= MAX_LIVE_S)) {
    throw new ConfigError(
      `--live must be a number of seconds from 0.001 to ${MAX_LIVE_S}, e.g. --live 5; got "${echoValue(raw, [])}".`,
      'live',
      '--live',
    );
  }
  return Math.round(seconds * 1000);
}

/**
 * The tier of the key the sandbox accepts. A live sandbox is for watching changes arrive, which the
 * free tier's 1,000 calls a day allow only every 346 s (87 s at the least): so pro there. A still one
 * stays free, the tier a new key of the service has, so that its limits are the ones a user meets.
 */
function parseTier(raw: string | undefined, live: boolean): Tier {
  if (raw === undefined) return live ? 'pro' : 'free';
  const tier = raw.trim().toLowerCase();
  if (tier !== 'free' && tier !== 'pro') {
    throw new ConfigError(`--tier must be free or pro; got "${echoValue(raw, [])}".`, 'tier', '--tier');
  }
  return tier;
}

/** The tier as the sandbox prints it: its daily limit, and what that means for `watch`. */
function tierLine(tier: Tier): string {
  const limit = DAILY_LIMITS[tier].toLocaleString('en-US');
  const other = tier === 'free' ? 'pro' : 'free';
  return `${tier}: ${limit} calls a day, so watch polls every ${defaultIntervalS(DAILY_LIMITS[tier])} s by default (--tier ${other} for ${defaultIntervalS(DAILY_LIMITS[other])} s)`;
}

/** Why the socket could not be opened, as a mistake in the flags the user can fix. */
function listenError(error: unknown, port: number, host: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      `port ${port} on ${echoValue(host, [])} is in use; choose another with --port, or --port 0 for a free one.`,
      'port',
      '--port',
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(
      `port ${port} needs privileges this user lacks; use a port above 1023, or --port 0.`,
      'port',
      '--port',
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError(
      `--host ${echoValue(host, [])} is not an address of this machine; the default is 127.0.0.1.`,
      'host',
      '--host',
    );
  }
  return error;
}

/** A value as one shell word: as it is when plain, else single-quoted ([::1] would be a glob). */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Starts the sandbox and resolves once it has stopped (SIGINT or SIGTERM). */
export async function runSandbox(flags: SandboxFlags, io: CliIo): Promise<number> {
  const port = parsePort(flags.port);
  const liveMs = parseLive(flags.live);
  const tier = parseTier(flags.tier, liveMs !== undefined);
  const host = flags.host === undefined ? '127.0.0.1' : parseBindHost(flags.host, '--port');
  const chosenKey = io.env.MODEL_FEED_API_KEY?.trim() || undefined;
  if (chosenKey !== undefined && !/^[\x21-\x7e]+$/.test(chosenKey)) {
    throw new ConfigError(
      'MODEL_FEED_API_KEY must be printable ASCII without spaces for the sandbox to accept it; unset it to get a generated key.',
      'MODEL_FEED_API_KEY',
    );
  }
  const sandbox = await startSandbox({
    port,
    host,
    key: chosenKey,
    tier,
    mcp: serveMcpEndpoint,
    live: liveMs === undefined ? undefined : { everyMs: liveMs },
    log: (level, message) => {
      if (level !== 'debug') io.stderr(`sandbox ${level}: ${message}\n`);
    },
  }).catch((error: unknown) => {
    throw listenError(error, port, host);
  });
  // Judged by the address it was bound to (an IPv4-mapped ::ffff:127.0.0.1 is loopback), and a
  // wildcard bind, printed as a loopback URL, is reachable from everywhere.
  const wildcard = /^(0\.0\.0\.0|::ffff:0\.0\.0\.0|[0:]+)$/i.test(host);
  if (wildcard || !isLoopbackHost(new URL(sandbox.url).hostname)) {
    io.stderr(
      `sandbox warn: bound to ${echoValue(host, [])}, reachable from other machines; anyone with the key can call it.\n`,
    );
  }
  // Ready to paste: the key is printed only when generated here (a chosen one stays unprinted).
  const exportLine = chosenKey
    ? `export MODEL_FEED_BASE_URL=${shellWord(sandbox.url)}   # plus MODEL_FEED_API_KEY, as set for the sandbox`
    : `export MODEL_FEED_BASE_URL=${shellWord(sandbox.url)} MODEL_FEED_API_KEY=${shellWord(sandbox.key)}`;
  const keyLine = chosenKey
    ? 'the value of MODEL_FEED_API_KEY'
    : `${sandbox.key}   (generated, shown once; set MODEL_FEED_API_KEY to choose it)`;
  io.stdout(
    [
      'Model Change Feed sandbox: sample data, not the live service.',
      `  base URL  ${sandbox.url}`,
      `  API key   ${keyLine}`,
      `  tier      ${tierLine(tier)}`,
      `  REST      ${sandbox.url}/api/v1/changes, /api/v1/models, /api/v1/models/{slug}/history`,
      `  MCP       POST ${sandbox.url}/api/mcp (Authorization: Bearer <key>)`,
      'Paste into another shell to point call, doctor and watch at it:',
      `  ${exportLine}`,
      ...(liveMs === undefined ? [] : [`Publishing a new change every ${liveMs / 1000} s.`]),
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
