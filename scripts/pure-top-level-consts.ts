/**
 * Rewrites every top-level `const NAME = EXPR;` of an ES module into
 * `const NAME = /* @__PURE__ *\/ (() => EXPR)();`, so that esbuild can drop the declarations
 * nothing in the bundle uses. The MCP SDK's types.js builds some 250 zod schemas at load; the
 * server uses a fraction of them, and building the rest cost most of a first start's module
 * initialisation (docs/benchmarks.md). Evaluation order and values of the ones kept are unchanged:
 * each IIFE runs where its declaration stood.
 *
 * Only for modules whose top-level initialisers have no side effects but building values.
 */
import ts from 'typescript';

export function pureTopLevelConsts(source: string, fileName: string): { code: string; wrapped: number } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const spans: Array<[number, number]> = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isIdentifier(declaration.name)) continue;
      // Literals and functions cost nothing to build: leave them as they are.
      if (ts.isLiteralExpression(init) || ts.isArrowFunction(init) || ts.isFunctionExpression(init)) continue;
      if (ts.isArrayLiteralExpression(init) && init.elements.every(ts.isStringLiteral)) continue;
      spans.push([init.getStart(file), init.getEnd()]);
    }
  }
  let code = '';
  let at = 0;
  for (const [start, end] of spans) {
    code += `${source.slice(at, start)}/* @__PURE__ */ (() => (${source.slice(start, end)}))()`;
    at = end;
  }
  return { code: code + source.slice(at), wrapped: spans.length };
}
