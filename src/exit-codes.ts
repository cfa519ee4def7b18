/** Exit codes of every command, documented in --help and the README. */
export const EXIT = {
  ok: 0,
  /** A tool call failed (call), or a check failed or could not run (doctor). */
  failed: 1,
  /** Invalid flags or settings. */
  usage: 2,
} as const;
