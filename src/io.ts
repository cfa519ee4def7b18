/**
 * What a command is handed to talk to the world. Its own module so that cli.ts and every
 * commands/* file import it from here, and no command imports the CLI that loads it.
 */

import type { CodeCache } from './code-cache-hook.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** The bin's V8 code cache, written at the server's quiet moments (src/code-cache-hook.ts). */
  codeCache?: CodeCache;
}
