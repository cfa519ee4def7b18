/** Replaced at build time by tsup and vitest `define`: package.json's version. */
declare const __PACKAGE_VERSION__: string;
/** Replaced at build time: package.json's `engines.node`, e.g. ">=20.18.1". */
declare const __PACKAGE_ENGINES_NODE__: string;
/**
 * Replaced at build time: each tool's input and output JSON Schema, converted from its zod schemas
 * by scripts/tool-json-schemas.ts.
 */
declare const __TOOL_JSON_SCHEMAS__: Readonly<
  Record<string, { input: { [keyword: string]: unknown }; output: { [keyword: string]: unknown } }>
>;
