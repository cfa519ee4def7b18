import { describeError } from './describe-error.js';
import { ConfigError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { CliIo } from './io.js';

/** What a command that failed prints, and its exit code: a setting is a usage error, not a stack. */
export function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof ConfigError) {
    io.stderr(`model-feed-mcp: ${error.message}\n`);
    return EXIT.usage;
  }
  io.stderr(`model-feed-mcp: ${describeError(error)}\n`);
  return EXIT.failed;
}
