/**
 * What a command is handed to talk to the world. Its own module so that cli.ts and every
 * commands/* file import it from here, and no command imports the CLI that loads it.
 */

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}
