import type { CliIo } from '../io.js';

/** What every command's action gets from the command line: the terminal, the words typed, the way out. */
export interface CommandContext {
  io: CliIo;
  argv: readonly string[];
  /** Records the exit code; the process ends once the command's work is done. */
  exit: (code: number) => void;
}
