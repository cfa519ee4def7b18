/** Replaced at build time by tsup and vitest `define`: package.json's version. */
declare const __PACKAGE_VERSION__: string;
/** Replaced at build time: package.json's `engines.node`, e.g. ">=20.18.1". */
declare const __PACKAGE_ENGINES_NODE__: string;
/**
 * Replaced at build time: each tool's input and output JSON Schema, converted from its zod schemas
 * by scripts/tool-json-schemas.ts, as JSON text (`{ [tool]: { input, output } }`). Text rather than
 * an object: esbuild would build an object define in a module of its own that every other module's
 * initialiser calls first.
 */
declare const __TOOL_JSON_SCHEMAS__: string;
