/**
 * How this copy was started, and so how a message names one of our commands for the user to run.
 * Started through npx (a client's `npx -y model-feed-mcp`, or `npx model-feed-mcp …` in a shell)
 * the bare name is usually not on the shell's PATH, so messages say `npx -y model-feed-mcp …`;
 * started by its name (a global install, a clone's bin), they say `model-feed-mcp …`. The command
 * line's entries decide it once from how they were started (nameCommandsFor); a library caller
 * gets the bare name.
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

let name = PACKAGE_NAME;

/** Called by the command line's entries, once, before anything is said. */
export function nameCommandsFor(facts: StartFacts): void {
  name = ranThroughNpx(facts) ? `npx -y ${PACKAGE_NAME}` : PACKAGE_NAME;
}

/** `model-feed-mcp doctor`, or `npx -y model-feed-mcp doctor` when npx started this copy. */
export function ownCommand(args = ''): string {
  return args ? `${name} ${args}` : name;
}
