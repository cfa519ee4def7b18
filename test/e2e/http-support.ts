/** The built CLI in `--http` mode, for the end-to-end tests. */

import { type RawProcess, spawnRaw } from './harness.js';

export interface HttpCli {
  raw: RawProcess;
  /** The endpoint URL the CLI printed on stderr. */
  url: string;
  /** Sends SIGTERM (or `signal`); resolves with the exit and how long it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null }>;
}

/** The CLI with `--http <address>`, once it has printed its URL on stderr (bounded wait). */
export async function startHttpCli(
  env: Record<string, string>,
  args: string[] = [],
  address = '127.0.0.1:0',
): Promise<HttpCli> {
  const raw = spawnRaw(env, ['--http', address, ...args]);
  const deadline = performance.now() + 10_000;
  let url: string | undefined;
  while (url === undefined) {
    url = /MCP over HTTP at (\S+)/.exec(raw.stderr())?.[1];
    if (performance.now() > deadline) throw new Error(`--http did not start: ${raw.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    raw,
    url,
    stop: async (signal = 'SIGTERM') => {
      raw.child.kill(signal);
      const exit = await raw.exited;
      return { code: exit.code };
    },
  };
}
