/**
 * Prompts beside the tools, shown by clients as slash commands. Each embeds the data it needs as
 * resources, so the assistant can answer without calling a tool first. Adding a prompt is one
 * module and one line in PROMPTS.
 */

import { type Prompt, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ServerDeps } from '../mcp-server-deps.js';
import { requestError, toRequestError } from '../request-errors.js';
import { parseArguments, shown } from '../tools/arguments.js';
import { type JsonSchema, toJsonSchema } from '../tools/json-schema.js';
import { compareModels } from './compare-models.js';
import { planMigration } from './plan-migration.js';
import type { PromptDefinition } from './prompt.js';
import { whatsNew } from './whats-new.js';

export const PROMPTS: readonly PromptDefinition[] = [
  whatsNew,
  compareModels,
  planMigration,
] as PromptDefinition[];

/** The `prompts/list` entries: what clients show. */
export function listPrompts(): Prompt[] {
  return PROMPTS.map((prompt) => ({
    name: prompt.name,
    title: prompt.title,
    description: prompt.description,
    arguments: prompt.arguments.map(({ name, description, required }) => ({
      name,
      description,
      ...(required && { required }),
    })),
  }));
}

const schemas = new Map<string, JsonSchema>();

/**
 * Input JSON Schemas (for the argument names in messages), made on first use: unlike the tools',
 * they are not made at build time, since only a `prompts/get` needs one and start-up converts none.
 */
function inputSchema(prompt: PromptDefinition): JsonSchema {
  let schema = schemas.get(prompt.name);
  if (!schema) {
    schema = toJsonSchema(prompt.input(), 'input');
    schemas.set(prompt.name, schema);
  }
  return schema;
}

/**
 * Prompt arguments arrive as strings. A field a client form left empty is taken as not given;
 * everything else is checked as tool arguments are, with the same messages.
 */
function givenArguments(raw: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(raw ?? {}).filter(([, value]) => value.trim() !== ''));
}

export function registerPrompts(server: Server, deps: ServerDeps): void {
  server.registerCapabilities({ prompts: {} });
  server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts() }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name } = request.params;
    const prompt = PROMPTS.find((p) => p.name === name);
    if (!prompt) {
      throw requestError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt ${shown(name)}. Available prompts: ${PROMPTS.map((p) => p.name).join(', ')}.`,
      );
    }
    try {
      const args = parseArguments(
        prompt.name,
        prompt.input(),
        inputSchema(prompt),
        givenArguments(request.params.arguments),
      );
      return await prompt.build(args, {
        api: deps.api,
        signal: ctx.mcpReq.signal,
        now: Date.now(),
        sampleData: deps.sampleData === true,
      });
    } catch (error) {
      throw toRequestError(error, `prompts/get ${prompt.name}`, ctx.mcpReq.signal, deps);
    }
  });
}
