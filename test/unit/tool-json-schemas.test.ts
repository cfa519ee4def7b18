import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { toJsonSchema } from '../../src/tools/json-schema.js';

describe('the JSON Schemas converted at build time (__TOOL_JSON_SCHEMAS__)', () => {
  // The build and the test run put in what converting the tools gave when their config loaded; a
  // watch mode keeps that value while the schemas change under it.
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s: equal to converting its schemas now',
    (name, tool) => {
      const built = (JSON.parse(__TOOL_JSON_SCHEMAS__) as Record<string, unknown>)[name];
      expect(built).toEqual({
        input: toJsonSchema(tool.input(), 'input'),
        output: toJsonSchema(tool.output(), 'output'),
      });
    },
  );
});
