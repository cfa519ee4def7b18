/**
 * What a command that runs once against the service (`call`, `check`) sets up and takes down: a
 * missing key or base URL reported as a settings mistake (exit 2, not a failed run), the logger
 * with the config's warnings (an ignored proxy variable, say), the runtime, and Ctrl-C aborting
 * what is in flight.
 */

import type { Config } from '../config.js';
import { describeError } from '../describe-error.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { createLogger, type Logger } from '../log.js';
import { createRuntime, type Runtime } from '../runtime.js';

export interface OneShot {
  log: Logger;
  runtime: Runtime;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
}

/** Runs `body` with the runtime, closed after it; `print` makes text safe for the terminal. */
export async function runOneShot(
  config: Config,
  io: CliIo,
  print: (text: string) => string,
  body: (shot: OneShot) => Promise<number>,
): Promise<number> {
  if (config.setupError) {
    io.stderr(`${print(describeError(config.setupError, 'shell'))}\n`);
    return EXIT.usage;
  }
  const log = createLogger({ level: config.logLevel, format: config.logFormat, secrets: config.secrets });
  for (const warning of config.warnings) log.warn(warning);
  const runtime = await createRuntime(config, log);
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    return await body({ log, runtime, signal: controller.signal });
  } finally {
    process.off('SIGINT', onSigint);
    await runtime.close();
  }
}
