/**
 * `model-feed-mcp --http [host:]port [--host <address>]`: the MCP server over Streamable HTTP at `POST /api/mcp`,
 * in the foreground until SIGINT or SIGTERM. stdout stays silent: the URL, warnings and logs go
 * to stderr, as in stdio mode.
 */

import { type Config, ENV } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import { type ListenAddress, parseHttpAddress } from '../../http/address.js';
import { startHttpEndpoint } from '../../http/endpoint.js';
import { isWildcardHost } from '../../http/host-check.js';
import type { CliIo } from '../../io.js';
import { nodeCrypto } from '../../lazy-node.js';
import { createLogger } from '../../log.js';
import { createServer } from '../../mcp-server.js';
import { isLoopbackHost } from '../../net/loopback.js';
import { settleWithin, startProcessLifetime } from '../../process-lifetime.js';
import { ChangesSubscriptions } from '../../resources/changes-subscriptions.js';
import { admitListens, changesEventBus } from '../../resources/listen.js';
import { createRuntime, serverDeps } from '../../runtime.js';
import { echoValue } from '../../text/redact.js';

/** Everything open is given this long on SIGINT/SIGTERM; the process is gone within a second. */
const SHUTDOWN_BUDGET_MS = 600;

interface EndpointKey {
  key: string;
  /** Where the key comes from, as the 401 text tells a client. */
  hint: string;
  /** Made up here: printed once, as `sandbox` does with its own. */
  generated: boolean;
}

/**
 * The key clients must send: the user's own (MODEL_FEED_API_KEY), which a client configured for
 * the hosted endpoint already holds; with --sandbox and no key set, a generated one.
 */
function endpointKey(config: Config): EndpointKey {
  if (config.apiKey !== undefined) {
    return {
      key: config.apiKey,
      hint: `the value of ${ENV.apiKey} this server was started with`,
      generated: false,
    };
  }
  return {
    key: `mfsk_local_${nodeCrypto().randomBytes(16).toString('hex')}`,
    hint: 'the key this server printed on stderr at start',
    generated: true,
  };
}

/** Why the socket could not be opened, as a mistake in `--http` the user can fix. */
function listenError(error: unknown, { host, port }: ListenAddress): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      `--http: port ${port} on ${echoValue(host, [])} is in use; choose another, or 0 for a free one.`,
      'http',
      '--http',
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(
      `--http: port ${port} needs privileges this user lacks; use a port above 1023.`,
      'http',
      '--http',
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    // `::1:8080` is an IPv6 address of its own: a port written after one is not read as a port.
    const portInside = host.includes(':')
      ? ' (an IPv6 address takes no port after it: the port goes in --http, as in --http 8080 --host ::1)'
      : '';
    return new ConfigError(
      `--http: ${echoValue(host, [])} is not an address of this machine${portInside}; leave the host out of --http and --host to bind 127.0.0.1.`,
      'http',
      '--http',
    );
  }
  return error;
}

/** Serves until SIGINT or SIGTERM; resolves with the exit code once everything is closed. */
export async function runHttp(
  config: Config,
  io: CliIo,
  rawAddress: string,
  rawHost: string | undefined,
): Promise<number> {
  const address = parseHttpAddress(rawAddress, rawHost);
  // Over stdio a missing key still lets the server list its tools; here the key is also the lock
  // on the port, and there is nothing to lock it with.
  if (config.setupError) throw config.setupError;
  const { key, hint, generated } = endpointKey(config);
  const secrets = [...config.secrets, key];
  const log = createLogger({ level: config.logLevel, format: config.logFormat, secrets });
  for (const warning of config.warnings) log.warn(warning);
  // No parent watch: a user may leave `--http` running after the shell that started it is gone.
  const lifetime = startProcessLifetime({ log });

  const runtime = await createRuntime(config, log);
  // One poller for the subscriptions of every session and every 2026 listen, not one each: N
  // subscribed clients cost one poll per interval, the interval the user chose or the tier's.
  const changeSubscriptions = new ChangesSubscriptions({
    api: runtime.api,
    log,
    intervalS: config.watchIntervalS,
  });
  const deps = serverDeps(runtime, log, secrets, {
    watchIntervalS: config.watchIntervalS,
    changeSubscriptions,
  });
  const endpoint = await startHttpEndpoint({
    ...address,
    key,
    keyHint: hint,
    log,
    createServer: (era) => createServer(deps, era),
    bus: changesEventBus(changeSubscriptions),
    admitModern: admitListens(changeSubscriptions, { log, secrets }),
  }).catch(async (error: unknown) => {
    await runtime.close();
    throw listenError(error, address);
  });

  if (isWildcardHost(address.host) || !isLoopbackHost(address.host)) {
    io.stderr(
      `model-feed-mcp: warning: --http binds ${echoValue(address.host, [])}, not loopback: anyone who can reach port ${endpoint.address.port} and holds the key can spend this key's daily quota.\n`,
    );
  }
  io.stderr(`model-feed-mcp: MCP over HTTP at ${endpoint.url} (POST, Authorization: Bearer <key>)\n`);
  if (generated) {
    io.stderr(`model-feed-mcp: key ${key}   (generated, shown once; set ${ENV.apiKey} to choose it)\n`);
  }

  await lifetime.ended;
  await settleWithin(SHUTDOWN_BUDGET_MS, [endpoint.close(), runtime.close()]);
  return EXIT.ok;
}
