/** `model-feed-mcp call <tool> [--arg value …] [--json]`: one tool call from the shell. */

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Config } from '../../config.js';
import { InvalidArgumentsError } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { callTool, parseToolArguments, SAMPLE_DATA_NOTE } from '../../mcp-server.js';
import { serverDeps } from '../../runtime.js';
import { redactSecrets } from '../../text/redact.js';
import { escapeJsonText, terminalSafe } from '../../text/terminal.js';
import { runOneShot } from '../one-shot.js';

export interface CallOptions {
  /** Print the structured result as JSON. */
  json: boolean;
  /** The flag typed for each argument (`maxInputPrice` → `--max-input-price`), for messages. */
  flags: Readonly<Record<string, string>>;
}

/**
 * Arguments checked here, before any setting or request, so a typo is a usage mistake (exit 2)
 * named by the flag the user typed, not a tool error about a schema field.
 */
function checkArguments(
  tool: string,
  args: Record<string, unknown>,
  flags: CallOptions['flags'],
): string | undefined {
  try {
    parseToolArguments(tool, args, {
      header: `Invalid flags for call ${tool}`,
      noun: 'flag',
      label: (name) => flags[name] ?? `--${name}`,
    });
    return undefined;
  } catch (error) {
    if (error instanceof InvalidArgumentsError) return error.message;
    throw error;
  }
}

/** Runs the tool as the server would and prints it; resolves with the exit code. */
export async function runCall(
  config: Config,
  io: CliIo,
  tool: string,
  args: Record<string, unknown>,
  { json, flags }: CallOptions,
): Promise<number> {
  // What reaches the terminal: no secret, no escape sequence, whatever the service sent.
  const print = (text: string): string => terminalSafe(redactSecrets(text, config.secrets));
  const invalid = checkArguments(tool, args, flags);
  if (invalid) {
    io.stderr(`${print(invalid)}\n`);
    return EXIT.usage;
  }
  return runOneShot(config, io, print, async ({ log, runtime, signal }) => {
    const result: CallToolResult = await callTool(
      serverDeps(runtime, log, config.secrets, { audience: 'shell' }),
      tool,
      args,
      signal,
    );
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (result.isError) {
      io.stderr(`${print(text)}\n`);
      return EXIT.failed;
    }
    if (json) {
      // The note that text results carry goes to stderr, keeping stdout parseable JSON.
      if (runtime.sampleData) io.stderr(`${SAMPLE_DATA_NOTE}\n`);
      const json = JSON.stringify(result.structuredContent, null, 2);
      io.stdout(`${escapeJsonText(redactSecrets(json, config.secrets))}\n`);
    } else {
      io.stdout(`${print(text)}\n`);
    }
    return EXIT.ok;
  });
}
