/**
 * A body checked against its lenient schema, in slices when it is long. Parsing one catalog entry
 * costs up to 30 µs (zod, a missing field caught for each optional one), so the 10,000 items the
 * body limits allow would hold the event loop for 300 ms in one go; parsed 1,000 at a time, with a
 * yield between slices, the process keeps answering `tools/list` and signals meanwhile.
 */

import * as z from 'zod';
import { yieldToEventLoop } from './yield.js';

/** Items parsed between two yields to the event loop. */
const ITEMS_PER_SLICE = 1_000;

export type ParseOutcome<T> = { ok: true; data: T } | { ok: false; where: string; message: string };

function failure(error: z.ZodError, offset = 0, prefix: readonly PropertyKey[] = []): ParseOutcome<never> {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])].map((part, i) =>
    i === prefix.length && typeof part === 'number' ? part + offset : part,
  );
  return {
    ok: false,
    where: path.length ? path.map(String).join('.') : 'body',
    message: issue?.message ?? 'not the documented shape',
  };
}

/** The `items` array of a page schema (an object schema with `items: z.array(...)`), if it has one. */
function itemsSchema(schema: z.ZodType): z.ZodType | undefined {
  const items = (schema as { shape?: Record<string, z.ZodType> }).shape?.items;
  return items instanceof z.ZodArray ? (items.element as z.ZodType) : undefined;
}

export async function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
): Promise<ParseOutcome<z.output<S>>> {
  const element = itemsSchema(schema);
  const items = (body as { items?: unknown } | null)?.items;
  if (!element || !Array.isArray(items) || items.length <= ITEMS_PER_SLICE) {
    const parsed = schema.safeParse(body);
    return parsed.success ? { ok: true, data: parsed.data } : failure(parsed.error);
  }
  const sliceSchema = z.array(element);
  const parsedItems: unknown[] = [];
  for (let start = 0; start < items.length; start += ITEMS_PER_SLICE) {
    await yieldToEventLoop();
    const slice = sliceSchema.safeParse(items.slice(start, start + ITEMS_PER_SLICE));
    if (!slice.success) return failure(slice.error, start, ['items']);
    parsedItems.push(...slice.data);
  }
  const shell = schema.safeParse({ ...(body as object), items: [] });
  if (!shell.success) return failure(shell.error);
  return { ok: true, data: { ...(shell.data as object), items: parsedItems } as z.output<S> };
}
