/**
 * The tools' JSON Schemas for `tools/list`, derived from their zod schemas when building (tsup) and
 * testing (vitest), and put into the code as `__TOOL_JSON_SCHEMAS__`. Converting them at run time
 * cost a first start 5-8 ms of `tools/list` (zod's converter compiled and run cold, measured), and
 * the result never changes between builds.
 */
import { TOOLS } from '../src/tools/index.js';
import { toJsonSchema } from '../src/tools/json-schema.js';

/** `{ [tool name]: { input, output } }` as JSON text, quoted as `define` takes a string. */
export function toolJsonSchemasDefine(): string {
  return JSON.stringify(
    JSON.stringify(
      Object.fromEntries(
        TOOLS.map((tool) => [
          tool.name,
          { input: toJsonSchema(tool.input(), 'input'), output: toJsonSchema(tool.output(), 'output') },
        ]),
      ),
    ),
  );
}
