/**
 * The build step for the MCP SDK's types.js, which builds every zod schema of the protocol at load:
 * some 160, of which this server uses about 100, and building them was most of a first start's
 * module initialisation (docs/benchmarks.md). Each top-level `const` is rewritten:
 * - `const XSchema = EXPR` → `const XSchema = /* @__PURE__ *\/ __lazySchema(() => EXPR)`: a stand-in
 *   that builds the schema the first time anything touches it, and forwards every operation to it
 *   from then on. Only the schemas a session uses are ever built (an initialize and a tools/list
 *   touch about half of them).
 * - any other computed `const` → `/* @__PURE__ *\/ (() => EXPR)()`, evaluated where it stood.
 * Both are marked pure, so esbuild drops the declarations nothing in the bundle refers to.
 *
 * Only for modules whose top-level initialisers have no side effects but building values, and
 * whose `…Schema` consts are zod schemas used for what they parse, not for who they are. A stand-in
 * is not its schema for identity: `z.globalRegistry.get(standIn)` and a registry it was registered
 * in miss it, `z.toJSONSchema` of an object holding a described stand-in drops the description,
 * `Object.freeze` and `structuredClone` of it throw, and `util.inspect` shows `{}`. The SDK does
 * none of these at run time (it reads method literals and parses; checked against its source and by
 * running every request kind through both builds), and the tools' JSON Schemas are made at build
 * time from the SDK as published.
 */
import ts from 'typescript';

/**
 * The stand-in: a Proxy over an empty object whose every trap acts on the built schema. Properties
 * are read from the schema with the schema as receiver, so getters, and the methods zod binds on
 * first read, run with the schema as `this`.
 */
const LAZY_SCHEMA_HELPER = `
function __lazySchema(build) {
  let schema;
  const real = () => (schema ??= build());
  return new Proxy({}, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // A Proxy may not report a property as non-configurable unless its target has it so.
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
  });
}
`;

export function lazyTopLevelConsts(
  source: string,
  fileName: string,
): { code: string; lazy: number; pure: number } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const spans: Array<{ start: number; end: number; lazy: boolean }> = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isIdentifier(declaration.name)) continue;
      // Literals and functions cost nothing to build: leave them as they are.
      if (ts.isLiteralExpression(init) || ts.isArrowFunction(init) || ts.isFunctionExpression(init)) continue;
      if (ts.isArrayLiteralExpression(init) && init.elements.every(ts.isStringLiteral)) continue;
      spans.push({
        start: init.getStart(file),
        end: init.getEnd(),
        lazy: declaration.name.text.endsWith('Schema'),
      });
    }
  }
  let code = '';
  let at = 0;
  for (const { start, end, lazy } of spans) {
    const expression = source.slice(start, end);
    code += source.slice(at, start);
    code += lazy
      ? `/* @__PURE__ */ __lazySchema(() => (${expression}))`
      : `/* @__PURE__ */ (() => (${expression}))()`;
    at = end;
  }
  const lazy = spans.filter((span) => span.lazy).length;
  return {
    code: code + source.slice(at) + (lazy ? LAZY_SCHEMA_HELPER : ''),
    lazy,
    pure: spans.length - lazy,
  };
}
