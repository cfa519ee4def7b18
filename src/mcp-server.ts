/**
 * The MCP server, with no transport: the stdio runner, the sandbox's `/api/mcp` and the tests all
 * connect it to their own. Built on the SDK's low-level `Server` with the tools' JSON Schemas
 * converted at build time (scripts/tool-json-schemas.ts), so `tools/list` converts nothing.
 */

import {
  type CallToolResult,
  type jsonSchemaValidator,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import type { StaleInfo } from './api/client.js';
import type { DataSource } from './api/data-source.js';
import { isRunningLow } from './api/rate-limit.js';
import { registerCompletions } from './completions.js';
import { describeError } from './describe-error.js';
import { AbortedError, isServiceUnavailable, ModelFeedError } from './errors.js';
import type { ServerDeps } from './mcp-server-deps.js';
import { registerPrompts } from './prompts/index.js';
import { LIST_CACHE_HINTS } from './resources/cache-hints.js';
import { registerResources } from './resources/index.js';
import { LegacyNotFoundCodes } from './resources/not-found.js';
import { redactSecrets } from './text/redact.js';
import { type ArgumentNaming, parseArguments } from './tools/arguments.js';
import { TOOLS } from './tools/index.js';
import type { JsonSchema } from './tools/json-schema.js';
import type { ToolDefinition } from './tools/tool.js';

export type { ServerDeps };

export const SERVER_NAME = 'model-feed-mcp';
export const RATE_LIMIT_META_KEY = 'modelFeed/rateLimit';
export const SAMPLE_DATA_META_KEY = 'modelFeed/sampleData';
export const STALE_META_KEY = 'modelFeed/stale';
export const SAMPLE_DATA_NOTE = 'Sample data from the built-in sandbox, not the live service.';

export const INSTRUCTIONS =
  'Model Change Feed: changes to AI models (new models, prices, APIs, deprecations) and the model catalog. ' +
  'To follow the feed, call list_model_changes with since=0 once, then with since=<latest> from each ' +
  'answer; this skips nothing. Use get_model for one model by catalog or Hugging Face id, and ' +
  'search_models to filter the catalog by vendor, price and context.';

interface CompiledTool {
  definition: ToolDefinition;
  inputSchema: JsonSchema;
  listing: Tool;
}

let compiled: Map<string, CompiledTool> | undefined;

/** Tool listings and their JSON Schemas, built on first use and kept for the process. */
function compiledTools(): Map<string, CompiledTool> {
  if (!compiled) {
    const jsonSchemas = JSON.parse(__TOOL_JSON_SCHEMAS__) as Record<
      string,
      { input: JsonSchema; output: JsonSchema } | undefined
    >;
    compiled = new Map(
      TOOLS.map((definition) => {
        const schemas = jsonSchemas[definition.name];
        if (!schemas) throw new Error(`${definition.name} has no JSON Schema: rebuild`);
        const inputSchema = schemas.input;
        const listing: Tool = {
          name: definition.name,
          title: definition.title,
          description: definition.description,
          inputSchema: inputSchema as Tool['inputSchema'],
          outputSchema: schemas.output as Tool['outputSchema'],
          annotations: {
            title: definition.title,
            readOnlyHint: true,
            idempotentHint: true,
            openWorldHint: true,
          },
        };
        return [definition.name, { definition, inputSchema, listing }];
      }),
    );
  }
  return compiled;
}

/**
 * What the first `tools/list` and the first call need, made while the client is idle: the listings
 * and each tool's argument schema.
 */
export function prepareTools(): void {
  for (const tool of compiledTools().values()) tool.definition.input();
}

/** The `tools/list` answer, identical for the stdio runner and the sandbox's `/api/mcp`. */
export function listTools(): Tool[] {
  return [...compiledTools().values()].map((tool) => tool.listing);
}

function resultMeta(deps: ServerDeps, stale?: StaleInfo): Record<string, unknown> | undefined {
  const rateLimit = deps.api.rateLimit;
  if (!rateLimit && !deps.sampleData && !stale) return undefined;
  return {
    ...(rateLimit && { [RATE_LIMIT_META_KEY]: rateLimit }),
    ...(deps.sampleData && { [SAMPLE_DATA_META_KEY]: true }),
    ...(stale && { [STALE_META_KEY]: stale }),
  };
}

/** "3 h", "12 min": how old a copy is, in the largest unit that fits. */
export function age(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** The first line of an answer of the public source: what it is, and how new. */
function publicDataLine(source: DataSource): string {
  const when = source.snapshotAt === null ? '' : `, snapshot of ${source.snapshotAt}`;
  return `Public data recorded on this machine (the aggregator's public catalog${when}); verification pending unless a vendor's own channel confirms.`;
}

/** The first line of an answer given from a stored copy. */
export function staleLine(stale: StaleInfo, from = 'the local cache'): string {
  return `From ${from}, ${age(stale.ageSeconds)} old: ${stale.reason}.`;
}

function withNotes(text: string, deps: ServerDeps): string {
  const rateLimit = deps.api.rateLimit;
  let out = text;
  if (rateLimit && isRunningLow(rateLimit)) {
    out += `\nNote: only ${rateLimit.remaining} of ${rateLimit.limit} calls left today (${rateLimit.tier ?? 'current'} tier).`;
  }
  return deps.sampleData ? `${SAMPLE_DATA_NOTE}\n${out}` : out;
}

/** A tool's arguments checked as a call would check them, worded by `naming` (for `call`'s flags). */
export function parseToolArguments(name: string, rawArguments: unknown, naming: ArgumentNaming): unknown {
  const tool = compiledTools().get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return parseArguments(name, tool.definition.input(), tool.inputSchema, rawArguments, naming);
}

/**
 * One tool call, from raw arguments to the MCP result. Failures become `isError` results whose
 * text says what to do; only an unknown tool name is a protocol error (-32602), as the spec asks.
 * A cancelled call rethrows: the SDK then sends nothing for it.
 */
export async function callTool(
  deps: ServerDeps,
  name: string,
  rawArguments: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const tool = compiledTools().get(name);
  if (!tool) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool "${name}". Available tools: ${[...compiledTools().keys()].join(', ')}.`,
    );
  }
  const started = performance.now();
  // The oldest copy that stood in for the service during this call, if any did.
  let stale: StaleInfo | undefined;
  const onStale = (info: StaleInfo) => {
    if (!stale || info.ageSeconds > stale.ageSeconds) stale = info;
  };
  // Where this call's answer came from (the public source's record it read), not another call's.
  let source: DataSource | undefined;
  const onSource = (found: DataSource) => {
    source = found;
  };
  try {
    const args = parseArguments(name, tool.definition.input(), tool.inputSchema, rawArguments);
    const outcome = await tool.definition.run(args, { api: deps.api, signal, notes: { onStale, onSource } });
    deps.log.debug('tool call', { tool: name, ms: Math.round(performance.now() - started) });
    const dataSource = source ?? deps.dataSource?.();
    // The feed of the public source comes from its record too: stale with it when it could not renew.
    stale ??= dataSource?.stale;
    const meta = resultMeta(deps, stale);
    const from = dataSource?.kind === 'public' ? 'the record on this machine' : undefined;
    const body = stale ? `${staleLine(stale, from)}\n${outcome.text}` : outcome.text;
    const text = dataSource?.kind === 'public' ? `${publicDataLine(dataSource)}\n${body}` : body;
    return {
      content: [{ type: 'text', text: redactSecrets(withNotes(text, deps), deps.secrets ?? []) }],
      structuredContent: dataSource ? { ...outcome.structured, dataSource } : outcome.structured,
      ...(meta && { _meta: meta }),
    };
  } catch (error) {
    if (signal.aborted || error instanceof AbortedError) throw new AbortedError();
    const note = tool.definition.unavailableNote;
    const described =
      note && isServiceUnavailable(error)
        ? `${describeError(error, deps.audience)} ${note}`
        : describeError(error, deps.audience);
    const text = redactSecrets(described, deps.secrets ?? []);
    if (error instanceof ModelFeedError) deps.log.info('tool error', { tool: name, error: text });
    else
      deps.log.error('tool failed unexpectedly', {
        tool: name,
        error: error instanceof Error ? error.stack : String(error),
      });
    const meta = resultMeta(deps);
    return {
      content: [{ type: 'text', text: deps.sampleData ? `${SAMPLE_DATA_NOTE}\n${text}` : text }],
      isError: true,
      ...(meta && { _meta: meta }),
    };
  }
}

/** The server never validates client-sent JSON Schemas (no elicitation), so no validator is loaded. */
const noSchemaValidation: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('model-feed-mcp does not validate client JSON Schemas');
  },
};

/** A 2025 server: a resource that does not exist is answered with 2025-11-25's code (resources/not-found.ts). */
class LegacyServer extends Server {
  readonly notFound = new LegacyNotFoundCodes();

  override connect(transport: Transport): Promise<void> {
    return super.connect(this.notFound.onWire(transport));
  }
}

/**
 * `era`: which protocol era this instance speaks. The SDK's serving entries build one per connection
 * (stdio) or request (2026 over HTTP) and say which; a 2025 one is what every caller got before.
 */
export function createServer(deps: ServerDeps, era: ProtocolEra = 'legacy'): Server {
  const server = new (era === 'legacy' ? LegacyServer : Server)(
    { name: SERVER_NAME, title: 'Model Change Feed', version: deps.version },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: noSchemaValidation,
      cacheHints: LIST_CACHE_HINTS,
    },
  );
  // The SDK reports what it could not handle (a response to an unknown id, say) only here.
  server.onerror = (error) => deps.log.debug('MCP protocol error', { error: error.message });
  server.setRequestHandler('tools/list', () => ({ tools: listTools() }));
  server.setRequestHandler('tools/call', (request, ctx) =>
    callTool(deps, request.params.name, request.params.arguments, ctx.mcpReq.signal),
  );
  registerResources(server, deps, era, server instanceof LegacyServer ? server.notFound : undefined);
  registerPrompts(server, deps);
  registerCompletions(server, deps);
  return server;
}
