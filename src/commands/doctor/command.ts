/** `doctor [--json]`: its flags, help and exit codes; the checks load when the command runs. */

import type { Command } from 'commander';
import { type ConfigFlags, resolveConfig } from '../../config.js';
import type { CommandContext } from '../context.js';

export function addDoctorCommand(program: Command, { io, argv, exit }: CommandContext): void {
  program
    .command('doctor')
    .description(
      'check Node, settings, proxy, CA certificates, DNS/TCP/TLS to the service, the key and the calls left',
    )
    .option('--json', 'print the checks as one JSON object')
    // Run with a client config's "args" pasted in, doctor should warn about a key among them, not refuse.
    .allowExcessArguments()
    .addHelpText(
      'after',
      '\nExit codes: 0 every check passed (warnings allowed), 1 a check failed or could not run, 2 invalid flags or settings.',
    )
    .action(async (_opts, command: Command) => {
      const { json, ...flags } = command.opts<Record<string, unknown>>();
      const config = resolveConfig(flags as ConfigFlags, io.env, argv, { audience: 'shell' });
      const { runDoctor } = await import('./run.js');
      exit(await runDoctor(config, io, { json: json === true }));
    });
}
