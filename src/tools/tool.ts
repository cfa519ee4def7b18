/** The shape of one tool module: everything a tool is, beside the handler that runs it. */

import type { z } from 'zod';
import type { FeedApi, ReadNotes } from '../api/client.js';
import { once } from '../once.js';

export interface ToolContext {
  api: FeedApi;
  /** Aborts when the client cancels the call; passed to every upstream request. */
  signal: AbortSignal;
  /**
   * Passed to catalog reads: told when an older copy answered because the service is down (tool
   * calls say so in their result; resources and prompts embed the data as it is), and until when
   * each answer is fresh (a resource read's cache hint).
   */
  notes?: ReadNotes;
}

export interface ToolOutcome {
  /** Matches the tool's output schema; sent as `structuredContent`. */
  structured: Record<string, unknown>;
  /** The compact rendering for clients that show only text. */
  text: string;
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  /** The hosted endpoint's tool name, unchanged. */
  name: string;
  title: string;
  /** Written for the model: when to use the tool and how. */
  description: string;
  /**
   * The arguments' schema, built on first use (a call, or the build's JSON Schema): start-up
   * builds no schema it may never need.
   */
  input: () => Input;
  /** The result's schema, for the JSON Schema `tools/list` shows (made at build time). */
  output: () => z.ZodType;
  run(args: z.output<Input>, context: ToolContext): Promise<ToolOutcome>;
  /** Added to the error text when the service is unavailable, e.g. why no cached copy can stand in. */
  unavailableNote?: string;
}

/** Keeps each tool's `run` typed by its own input schema, and builds that schema once. */
export function defineTool<Input extends z.ZodType>(tool: ToolDefinition<Input>): ToolDefinition<Input> {
  return { ...tool, input: once(tool.input) };
}
