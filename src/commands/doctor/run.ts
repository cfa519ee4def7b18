/**
 * `model-feed-mcp doctor [--json]`: what stands between this machine and the service, one check
 * per line: Node, settings, base URL, proxy, CA certificates, DNS, TCP, TLS, the key, the rate
 * limit. With `--source public`, the public origins instead: each one's route, DNS, TCP, TLS and
 * one GET, then the record kept here. Exit 0 only when every check passed (warnings allowed, and
 * origins turned off).
 */

import type { Config } from '../../config.js';
import { authenticate } from '../../doctor/authenticate.js';
import { checkCaSources } from '../../doctor/ca-check.js';
import type { Check } from '../../doctor/check.js';
import { runNetworkChecks } from '../../doctor/network-checks.js';
import { checkNodeVersion } from '../../doctor/node-version.js';
import * as probes from '../../doctor/probes.js';
import { runPublicChecks } from '../../doctor/public-checks.js';
import { exitCodeFor, renderJson, renderText } from '../../doctor/report.js';
import { planRoute } from '../../doctor/route.js';
import { checkBaseUrl, checkProxy } from '../../doctor/route-checks.js';
import { checkSettings } from '../../doctor/settings-check.js';
import { checkNoAccount, checkPublicSettings } from '../../doctor/source-check.js';
import type { CliIo } from '../../io.js';
import { createLogger, type Logger } from '../../log.js';
import { chooseProxy } from '../../net/proxy.js';
import { startLocalSandbox } from '../../runtime.js';
import { redactSecrets } from '../../text/redact.js';
import { escapeJsonText, terminalSafe } from '../../text/terminal.js';
import { NODE_ENGINES } from '../../version.js';

export interface DoctorOptions {
  json: boolean;
}

interface Target {
  /** The config the checks run with: with --sandbox, pointed at the sandbox started here. */
  config: Config;
  sandboxUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * With --sandbox, doctor starts the sandbox itself: the runtime would start its own, but does not
 * say where, and the DNS/TCP checks need to know.
 */
async function resolveTarget(config: Config, log: Logger): Promise<Target> {
  if (!config.sandbox) return { config, sandboxUrl: undefined, close: async () => {} };
  const sandbox = await startLocalSandbox(log);
  return {
    config: { ...config, sandbox: false, baseUrl: sandbox.url, apiKey: sandbox.key, setupError: undefined },
    sandboxUrl: sandbox.url,
    close: () => sandbox.close(),
  };
}

/** No key, no base URL: the settings of the public source, CA, every origin, the record. */
async function collectPublicChecks(config: Config, io: CliIo, log: Logger): Promise<Check[]> {
  const extraCa = config.extraCaCerts ? await probes.readExtraCaFile(config.extraCaCerts) : undefined;
  const local = [
    checkNodeVersion(process.versions.node, NODE_ENGINES),
    checkPublicSettings(config, io.env),
    checkCaSources(process.getBuiltinModule('node:tls').rootCertificates.length, extraCa),
  ];
  return [...local, ...(await runPublicChecks({ config, env: io.env, log, probes }))];
}

async function collectChecks(target: Target, io: CliIo, log: Logger): Promise<Check[]> {
  const { config } = target;
  if (config.source === 'public') return collectPublicChecks(config, io, log);
  const noAccount = checkNoAccount(config, io.env);
  const proxyChoice = config.baseUrl ? chooseProxy(new URL(config.baseUrl), config.proxy) : undefined;
  const extraCa = config.extraCaCerts ? await probes.readExtraCaFile(config.extraCaCerts) : undefined;
  const local = [
    checkNodeVersion(process.versions.node, NODE_ENGINES),
    checkSettings({
      config,
      env: io.env,
      sandboxUrl: target.sandboxUrl,
      noAccountApart: noAccount !== undefined,
    }),
    ...(noAccount ? [noAccount] : []),
    checkBaseUrl(config.baseUrl),
    checkProxy(proxyChoice),
    checkCaSources(process.getBuiltinModule('node:tls').rootCertificates.length, extraCa),
  ];
  const network = await runNetworkChecks(
    {
      route: config.baseUrl && proxyChoice ? planRoute(config.baseUrl, proxyChoice) : undefined,
      baseUrlSetting: config.sources.baseUrl,
      timeoutMs: config.timeoutMs,
      authenticate: config.apiKey ? () => authenticate(config, log) : undefined,
    },
    probes,
  );
  return [...local, ...network];
}

/**
 * No check prints a key, but a value shown as found (a base URL path, say) could carry one by
 * mistake. Blanked in each text before rendering, so JSON escaping cannot hide a key from it; and
 * only the keys: the full log redactor would also mangle the `user:password` example of the 407
 * advice.
 */
function withoutKeys(checks: readonly Check[], keys: readonly (string | undefined)[]): Check[] {
  return checks.map((c) => ({
    ...c,
    detail: redactSecrets(c.detail, keys),
    ...(c.fix === undefined ? {} : { fix: redactSecrets(c.fix, keys) }),
  }));
}

export async function runDoctor(config: Config, io: CliIo, options: DoctorOptions): Promise<number> {
  const log = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    secrets: config.secrets,
    write: io.stderr,
  });
  const target = await resolveTarget(config, log);
  try {
    const found = await collectChecks(target, io, log);
    const checks = withoutKeys(found, [...config.secrets, target.config.apiKey]);
    // Details quote what the network said (a proxy's error page, a certificate's name): printed only
    // once escape sequences and bidi overrides are gone.
    io.stdout(options.json ? escapeJsonText(renderJson(checks)) : terminalSafe(renderText(checks)));
    return exitCodeFor(checks);
  } finally {
    await target.close();
  }
}
