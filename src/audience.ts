/**
 * Who reads a settings message, and so where it says to set a variable. The server is started by
 * an MCP client, whose config has an "env" block for it; `call`, `doctor` and `watch` run in a
 * shell, where `export` is the fix and a client's "env" would be beside the point.
 */
export type Audience = 'client' | 'shell';

/**
 * Where and how to set these variables, as the end of "set X …": `name=example` pairs, examples
 * as a person would type them (placeholders in angle brackets).
 */
export function whereToSet(audience: Audience, vars: ReadonlyArray<readonly [string, string]>): string {
  if (audience === 'shell') {
    return `in this shell, e.g. export ${vars.map(([name, example]) => `${name}=${example}`).join(' ')}`;
  }
  const entries = vars.map(([name, example]) => `"${name}": "${example}"`).join(', ');
  return `in the MCP client's "env" for this server, e.g. "env": {${entries}}`;
}
