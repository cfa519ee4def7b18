/**
 * The tools' JSON Schemas for `tools/list`, derived from their zod schemas when building (tsup) and
 * testing (vitest), and put into the code as `__TOOL_JSON_SCHEMAS__`. Converting them at run time
 * cost a first start 5-8 ms of `tools/list` (zod's converter compiled and run cold, measured), and
 * the result never changes between builds.
 *
 * It runs inside the tsup and vitest config processes: src/tools/ and what it imports must not read
 * a build-time global (__PACKAGE_VERSION__ and the like) when they load. A watch mode keeps the
 * value its config computed at start. test/unit/tool-json-schemas.test.ts holds what the build
 * embedded to zod's own conversion and to the tools' zod schemas.
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
