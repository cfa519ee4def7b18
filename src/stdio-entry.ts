/**
 * The entry of dist/server.cjs, which the bin loads when a client starts the server with no
 * arguments, as nearly every client config does. It holds the stdio server and what it needs, and
 * none of the command line (commander, call, watch, doctor, setup, --http): about 60 % of the bytes
 * of dist/index.cjs, so a start parses and compiles that much less.
 */

import './zod-jitless.js';
import { resolveConfig } from './config.js';
import type { CliIo } from './io.js';
import { nameCommandsFor } from './own-command.js';
import { reportFailure } from './report-failure.js';
import { serveStdio } from './serve-stdio.js';

/** The same contract as cli.ts's `main` for no arguments: undefined while serving, else an exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  nameCommandsFor({ env: io.env, script: process.argv[1] });
  try {
    await serveStdio(resolveConfig({}, io.env, argv), io);
    return undefined;
  } catch (error) {
    return reportFailure(error, io);
  }
}
