/** The shape of one prompt module, like a tool's (tools/tool.ts): what it is, and what builds it. */

import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { FeedApi } from '../api/client.js';
import { once } from '../once.js';

/** What `completion/complete` offers for an argument (completions.ts). */
export type CompletionKind = 'id' | 'ids' | 'vendor' | 'eventType' | 'days';

export interface PromptArgument {
  name: string;
  /** Shown by clients beside the field: short. */
  description: string;
  required?: boolean;
  completes?: CompletionKind;
}

export interface PromptContext {
  api: FeedApi;
  signal: AbortSignal;
  /** Unix ms. */
  now: number;
  /** The in-process sandbox answers: the data is sample data, and the prompt says so. */
  sampleData: boolean;
}

export interface PromptDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  arguments: readonly PromptArgument[];
  /**
   * Checks the arguments (strings from the client; numbers are coerced as for tools). Built on
   * first use, as a tool's is.
   */
  input: () => Input;
  build(args: z.output<Input>, context: PromptContext): Promise<GetPromptResult>;
}

export function definePrompt<Input extends z.ZodType>(
  prompt: PromptDefinition<Input>,
): PromptDefinition<Input> {
  return { ...prompt, input: once(prompt.input) };
}

/** The request, addressed to the assistant. */
export function instruction(text: string, context: PromptContext): PromptMessage {
  const note = context.sampleData
    ? '\n\nNote: the attached data is sample data from the built-in sandbox, not the live service.'
    : '';
  return { role: 'user', content: { type: 'text', text: `${text}${note}` } };
}

/** Data the assistant answers from, embedded as a resource so it needs no tool call first. */
export function embedded(uri: string, value: unknown): PromptMessage {
  return {
    role: 'user',
    content: {
      type: 'resource',
      resource: { uri, mimeType: 'application/json', text: JSON.stringify(value) },
    },
  };
}
