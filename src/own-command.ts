/**
 * How this copy was started, and so how a message names one of our commands for the user to run.
 * Started through npx (a client's `npx -y model-feed-mcp`, or `npx model-feed-mcp …` in a shell)
 * the bare name is usually not on the shell's PATH, so messages say `npx -y model-feed-mcp …`;
 * started by its name (a global install, a clone's bin), they say `model-feed-mcp …`.
 */

export const PACKAGE_NAME = 'model-feed-mcp';

export interface StartFacts {
  env: Readonly<Record<string, string | undefined>>;
  /** The script this process runs (process.argv[1]). */
  script: string | undefined;
}

/** npm's exec sets npm_command; its cache folder `_npx` shows even where the variable is lost. */
export function ranThroughNpx(facts: StartFacts): boolean {
  const script = facts.script ?? '';
  return /[\\/]_npx[\\/]/.test(script) || facts.env.npm_command === 'exec';
}

/** `model-feed-mcp doctor`, or `npx -y model-feed-mcp doctor` when npx started this copy. */
export function ownCommand(
  args = '',
  facts: StartFacts = { env: process.env, script: process.argv[1] },
): string {
  const name = ranThroughNpx(facts) ? `npx -y ${PACKAGE_NAME}` : PACKAGE_NAME;
  return args ? `${name} ${args}` : name;
}
