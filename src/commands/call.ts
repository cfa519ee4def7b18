/** `model-feed-mcp call <tool> [--arg value …] [--json]`: one tool call from the shell. */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../cli.js';
import type { Config } from '../config.js';
import { describeError } from '../describe-error.js';
import { EXIT } from '../exit-codes.js';
import { createLogger } from '../log.js';
import { createRuntime } from '../runtime.js';
import { callTool, SAMPLE_DATA_NOTE } from '../server.js';
import { VERSION } from '../version.js';

/** Runs the tool as the server would and prints it; resolves with the exit code. */
export async function runCall(
  config: Config,
  io: CliIo,
  tool: string,
  args: Record<string, unknown>,
  json: boolean,
): Promise<number> {
  // A missing key or base URL is a settings mistake, like a bad flag: exit 2, not a failed call.
  if (config.setupError) {
    io.stderr(`${describeError(config.setupError)}\n`);
    return EXIT.usage;
  }
  const log = createLogger({ level: config.logLevel, format: config.logFormat, secrets: [config.apiKey] });
  const runtime = await createRuntime(config, log);
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result: CallToolResult = await callTool(
      { api: runtime.api, log, version: VERSION, sampleData: runtime.sampleData },
      tool,
      args,
      controller.signal,
    );
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    if (result.isError) {
      io.stderr(`${text}\n`);
      return EXIT.failed;
    }
    if (json) {
      // The note that text results carry goes to stderr, keeping stdout parseable JSON.
      if (runtime.sampleData) io.stderr(`${SAMPLE_DATA_NOTE}\n`);
      io.stdout(`${JSON.stringify(result.structuredContent, null, 2)}\n`);
    } else {
      io.stdout(`${text}\n`);
    }
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSigint);
    await runtime.close();
  }
}
