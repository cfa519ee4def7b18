/** `sandbox`: its flags; the sandbox service and its data load when the command runs. */

import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import type { SandboxFlags } from './run.js';

export function addSandboxCommand(program: Command, { io, exit }: CommandContext): void {
  program
    .command('sandbox')
    .description(
      'run the sandbox service (sample data) on loopback; prints its base URL and the key it accepts',
    )
    .option('--port <n>', 'TCP port; 0 picks a free one', '0')
    .option(
      '--host <host>',
      'interface to bind; anything but loopback exposes it to the network',
      '127.0.0.1',
    )
    .option(
      '--live <seconds>',
      'publish a new sample change every <seconds> s (up to 86400), so the feed grows',
    )
    .option(
      '--tier <tier>',
      'the tier of the key it accepts: free (1,000 calls a day) or pro (100,000); default pro with --live, so watch can poll every few seconds, else free',
    )
    .action(async (flags: SandboxFlags) => {
      const { runSandbox } = await import('./run.js');
      exit(await runSandbox(flags, io));
    });
}
