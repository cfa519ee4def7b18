/**
 * The program itself: the stdio server an MCP client starts, or with `--http` the same tools over
 * HTTP. Its own flags sit beside the settings; its code loads only when a flag asks for it.
 */

import type { Command } from 'commander';
import { configuredKey } from '../../cli-settings.js';
import { type ConfigFlags, resolveConfig } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { echoValue } from '../../text/redact.js';
import { refuseCommand } from '../../unknown-flag.js';
import type { CommandContext } from '../context.js';

/** The root program's own flags beside the settings: where `--http` listens. */
export type ServeFlags = ConfigFlags & { http?: string; host?: string };

export async function serve(flags: ServeFlags, { io, argv, exit }: CommandContext): Promise<void> {
  if (flags.host !== undefined && flags.http === undefined) {
    throw new ConfigError(
      `--host applies only with --http: the stdio server opens no port. Use --http <port> --host ${echoValue(flags.host, configuredKey(io.env))}.`,
      'host',
      '--host',
    );
  }
  const config = resolveConfig(flags, io.env, argv);
  if (flags.http !== undefined) {
    const { runHttp } = await import('./http.js');
    exit(await runHttp(config, io, flags.http, flags.host));
    return;
  }
  const { serveStdio } = await import('../../serve-stdio.js');
  await serveStdio(config, io);
}

export function addServeFlags(program: Command, context: CommandContext): void {
  program
    .option(
      '--http <[host:]port>',
      'serve MCP over HTTP at POST /api/mcp instead of stdio (bearer key as for the hosted endpoint; binds 127.0.0.1 unless a host is given here or in --host)',
    )
    .option(
      '--host <address>',
      'with --http: the interface to bind (default 127.0.0.1); any other than loopback lets anyone who reaches the port and holds the key spend its quota',
    )
    .action((flags: ServeFlags, command: Command) => {
      if (command.args.length) refuseCommand(program, command.args[0] ?? '');
      return serve(flags, context);
    });
}
