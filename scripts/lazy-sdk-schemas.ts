/**
 * The build step that makes the MCP SDK's (v2) protocol schemas lazy: each is built the first time
 * something touches it, so a session builds only the schemas it uses. Wired in tsup.config.ts, on
 * three files of the SDK as installed:
 * - `@modelcontextprotocol/core`'s `schemas-*.mjs` and `auth-*.mjs`: the neutral schema layer, some
 *   180 zod schemas built at module load, on every start, warm or not (the code cache saves
 *   compiling, not running);
 * - `@modelcontextprotocol/server`'s `src-*.mjs`: the two era wire-schema sets, each built whole
 *   by one `build()` function on the first message of its era (`buildSchemas2025()` on
 *   `initialize`, `buildSchemas2026()` on the envelope check of a 2026 opening).
 *
 * A schema `const` becomes `const XSchema = /* @__PURE__ *\/ __lazySdkSchema(() => (EXPR))`: a
 * stand-in that builds the schema on first touch and forwards every operation to it from then on.
 * Inside a `build()` function the same goes for the schemas of the object it returns and of the
 * plain objects it keeps (method → schema maps, zod shapes). At the top level the stand-ins are
 * marked pure, so esbuild drops the schemas nothing refers to.
 *
 * It fails the build when the code is not as expected (a statement, initialiser or member it does
 * not know; too few schemas): a changed SDK is read again before it is rewritten.
 *
 * What a stand-in is not: its schema's identity. `z.globalRegistry.get(standIn)` misses,
 * `Object.freeze` and `structuredClone` of it throw, `util.inspect` shows `{}`. The SDK does none
 * of these to these schemas at run time (it parses with them, reads their shapes and extends them);
 * the tools' JSON Schemas are made at build time from our own zod schemas (tool-json-schemas.ts).
 *
 * Measured with scripts/bench-startup-ab.mjs (builds with and without, interleaved in one run;
 * medians; spawn → `tools/list` answered, ratio to bare node; 2026-11-25, 2 shared cores, load ~1.5):
 *
 *   40 runs, neither → both   2025 first      2025 warm       2026 first      2026 warm
 *   Node 20.20 (bare 27 ms)   95.6 → 80.1 ms  73.1 → 59.1 ms  98.6 → 81.8 ms  77.7 → 60.0 ms
 *                             3.52 → 2.95 x   2.69 → 2.17 x   3.63 → 3.01 x   2.86 → 2.21 x  (-16 to -23 %)
 *   Node 24.21 (bare 30 ms)   96.8 → 82.3 ms  73.8 → 61.2 ms  100.1 → 83.7 ms 76.5 → 62.3 ms
 *                             3.28 → 2.79 x   2.50 → 2.07 x   3.39 → 2.83 x   2.59 → 2.11 x  (-15 to -19 %)
 *   (to the opening's answer: -16 to -24 % on Node 20, -16 to -19 % on Node 24)
 *
 * The two parts (tsup.config.ts: lazy-sdk-core-schemas, lazy-sdk-wire-schemas) each add about 10 %
 * on top of the other, 60 runs, same order of columns: core -9.8 -12.9 -8.8 -12.4 % (Node 20),
 * -10.1 -12.4 -9.6 -10.7 % (Node 24); wire -9.8 -9.6 -6.4 -10.2 % (Node 20), -8.2 -9.9 -9.5
 * -10.1 % (Node 24). They overlap: whichever schemas are built first also pay zod's own warm-up.
 * `MODEL_FEED_BUILD_WITHOUT=<part>` builds without one, to measure again. Parsing through stand-ins
 * costs about 0.1 µs more per request (core's tools/call schema, 100,000 parses: 0.62-0.72 →
 * 0.75-0.80 µs).
 *
 * Tried the same way and left out, under 10 % on these figures: McpServer replaced by a stand-in in
 * `serveStdio`'s import (20 kB less bundle; -5 to +4 %), the elicitation key sets that src-*.mjs
 * builds from schemas at load (made lazy by hand in a built bundle: -1 to -9 %), and skipping
 * `parseJSONRPCMessage` in our stdio transport (an upper bound, also by hand: -0.4 to -1.9 %).
 */
import ts from 'typescript';

export const LAZY_HELPER_NAME = '__lazySdkSchema';

/**
 * The stand-in: a Proxy over an empty object whose every trap acts on the built value. Properties
 * are read from the value with the value as receiver, so getters, and the methods zod binds on
 * first read, run with the schema as `this`.
 */
const LAZY_HELPER = `
function ${LAZY_HELPER_NAME}(build) {
  let value;
  const real = () => (value ??= build());
  return new Proxy({}, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, v) => Reflect.set(real(), key, v),
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

/** Thrown when the SDK's code is not shaped as this step expects. */
export class UnexpectedSdkShape extends Error {
  constructor(fileName: string, file: ts.SourceFile, node: ts.Node, what: string) {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    super(
      `${fileName}:${line + 1}: ${what} (the MCP SDK changed shape: read it again, then update scripts/lazy-sdk-schemas.ts)`,
    );
  }
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function applyEdits(source: string, edits: Edit[]): string {
  let code = '';
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    code += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return code + source.slice(at);
}

/** Values that cost nothing to make (`constants`: names already known to hold such): left as they are. */
function isCheap(node: ts.Expression, constants: ReadonlySet<string>): boolean {
  if (
    (ts.isIdentifier(node) && constants.has(node.text)) ||
    ts.isStringLiteral(node) ||
    ts.isNumericLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isRegularExpressionLiteral(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword
  ) {
    return true;
  }
  if (ts.isPrefixUnaryExpression(node)) return ts.isNumericLiteral(node.operand);
  if (ts.isVoidExpression(node)) return ts.isNumericLiteral(node.expression);
  if (ts.isArrayLiteralExpression(node)) return node.elements.every((element) => isCheap(element, constants));
  return false;
}

/** The identifier a chain of calls, property reads and element reads starts from. */
function rootOf(node: ts.Expression): ts.Identifier | undefined {
  let at: ts.Expression = node;
  for (;;) {
    if (ts.isIdentifier(at)) return at;
    if (ts.isCallExpression(at) || ts.isPropertyAccessExpression(at) || ts.isElementAccessExpression(at)) {
      at = at.expression;
    } else if (ts.isParenthesizedExpression(at)) {
      at = at.expression;
    } else {
      return undefined;
    }
  }
}

const lazyText = (source: string, file: ts.SourceFile, node: ts.Expression, pure: boolean): string =>
  `${pure ? '/* @__PURE__ */ ' : ''}${LAZY_HELPER_NAME}(() => (${source.slice(node.getStart(file), node.getEnd())}))`;

/** Methods of a zod schema (and of any function) whose result is not a schema. */
const NOT_SCHEMA_METHODS = new Set([
  'bind',
  'call',
  'apply',
  'parse',
  'safeParse',
  'parseAsync',
  'safeParseAsync',
]);

/**
 * One scope's rewrite (a module's top level, or a build function's body). `makers` are the names
 * whose calls or reads build a schema: `z`, the scope's own helper functions, and each schema made
 * lazy so far.
 */
class ScopeRewrite {
  readonly edits: Edit[] = [];
  /** Names holding literal values. */
  private readonly constants = new Set<string>();
  /** Names holding plain objects whose members were made lazy (zod shapes), which may be spread. */
  private readonly shapes = new Set<string>();
  lazy = 0;

  constructor(
    private readonly source: string,
    private readonly file: ts.SourceFile,
    private readonly fileName: string,
    readonly makers: Set<string>,
    private readonly pure: boolean,
  ) {}

  /** A schema, a helper that makes them, or a plain object of schemas. */
  private known(name: string): boolean {
    return this.makers.has(name) || this.shapes.has(name);
  }

  fail(node: ts.Node, what: string): never {
    throw new UnexpectedSdkShape(this.fileName, this.file, node, what);
  }

  /**
   * Whether the expression builds a schema: it starts from a maker, and what it ends in makes a
   * schema (a call such as `z.object(…)` or `X.extend(…)`) or reads a zod shape (`X.shape`, a plain
   * object of schemas). Anything else read off a schema (`.options`, `.bind(…)`, a parse) need not
   * be an object a stand-in can be: the build fails rather than ship one.
   */
  buildsSchema(node: ts.Expression): boolean {
    const root = rootOf(node);
    if (root === undefined || root === node || !this.makers.has(root.text)) return false;
    let outer: ts.Expression = node;
    while (ts.isParenthesizedExpression(outer)) outer = outer.expression;
    if (ts.isPropertyAccessExpression(outer) && outer.name.text !== 'shape') {
      this.fail(outer, `reads .${outer.name.text} of a schema, which need not be a schema`);
    }
    if (ts.isElementAccessExpression(outer)) this.fail(outer, 'reads an element of a schema');
    if (
      ts.isCallExpression(outer) &&
      ts.isPropertyAccessExpression(outer.expression) &&
      NOT_SCHEMA_METHODS.has(outer.expression.name.text)
    ) {
      this.fail(outer, `calls .${outer.expression.name.text} of a schema, which returns no schema`);
    }
    return true;
  }

  /** `const NAME = INIT`: what it becomes. */
  declaration(name: ts.Identifier, init: ts.Expression): void {
    if (isCheap(init, this.constants)) {
      // A helper the scope's schemas are made with: `const wrap = (x) => z.object(...)`.
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) this.makers.add(name.text);
      else this.constants.add(name.text);
      return;
    }
    if (ts.isIdentifier(init)) {
      // An alias of a schema already lazy.
      if (!this.makers.has(init.text))
        this.fail(init, `${name.text} aliases ${init.text}, not a known schema`);
      this.makers.add(name.text);
      return;
    }
    if (ts.isObjectLiteralExpression(init)) {
      this.objectMembers(init, name.text);
      this.shapes.add(name.text);
      return;
    }
    if (!this.buildsSchema(init)) this.fail(init, `${name.text} is not built from zod or a known schema`);
    this.makeLazy(init);
    this.makers.add(name.text);
  }

  /** A plain object of schemas (a shape, a method → schema map, the returned set): each member lazy. */
  objectMembers(object: ts.ObjectLiteralExpression, owner: string): void {
    for (const member of object.properties) {
      if (ts.isShorthandPropertyAssignment(member)) {
        if (!this.known(member.name.text)) this.fail(member, `${owner}.${member.name.text} is not a schema`);
        continue;
      }
      // `...retryParamsShape`: copies stand-ins, builds nothing.
      if (
        ts.isSpreadAssignment(member) &&
        ts.isIdentifier(member.expression) &&
        this.shapes.has(member.expression.text)
      ) {
        continue;
      }
      if (!ts.isPropertyAssignment(member) || ts.isComputedPropertyName(member.name)) {
        this.fail(member, `${owner} has a member that is not a plain property`);
      }
      const value = member.initializer;
      if (isCheap(value, this.constants)) continue;
      if (ts.isIdentifier(value)) {
        if (!this.known(value.text)) this.fail(value, `${owner} holds ${value.text}, not a known schema`);
        continue;
      }
      if (!this.buildsSchema(value))
        this.fail(value, `${owner} has a member not built from zod or a known schema`);
      this.makeLazy(value);
    }
  }

  makeLazy(node: ts.Expression): void {
    this.edits.push({
      start: node.getStart(this.file),
      end: node.getEnd(),
      text: lazyText(this.source, this.file, node, this.pure),
    });
    this.lazy++;
  }
}

/** Every `const` of a statement, or a failure if it declares anything else. */
function constDeclarations(
  statement: ts.VariableStatement,
  fail: (node: ts.Node, what: string) => never,
): Array<{ name: ts.Identifier; init: ts.Expression }> {
  if (!(statement.declarationList.flags & ts.NodeFlags.Const))
    fail(statement, 'a `let` or `var` declaration');
  return statement.declarationList.declarations.map((declaration) => {
    if (!ts.isIdentifier(declaration.name) || !declaration.initializer) {
      fail(declaration, 'a destructuring or uninitialised const');
    }
    return { name: declaration.name, init: declaration.initializer };
  });
}

const parse = (source: string, fileName: string) =>
  ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);

/**
 * A module made only of schema constants (core's `schemas-*.mjs`, `auth-*.mjs`): imports, literal
 * constants, schema constants and the export list. Each schema constant becomes a pure stand-in.
 */
export function lazyModuleSchemas(source: string, fileName: string): { code: string; lazy: number } {
  const file = parse(source, fileName);
  const scope: ScopeRewrite = new ScopeRewrite(source, file, fileName, new Set(['z']), true);
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) continue;
    if (!ts.isVariableStatement(statement))
      scope.fail(statement, `an unexpected ${ts.SyntaxKind[statement.kind]}`);
    for (const { name, init } of constDeclarations(statement, scope.fail.bind(scope)))
      scope.declaration(name, init);
  }
  if (source.includes(LAZY_HELPER_NAME))
    scope.fail(file, `the source already uses the name ${LAZY_HELPER_NAME}`);
  return { code: applyEdits(source, scope.edits) + (scope.lazy ? LAZY_HELPER : ''), lazy: scope.lazy };
}

/**
 * The era wire-schema builders in the server's `src-*.mjs`: for each memo named in `memos`
 * (`function buildSchemas2025() { return memo ??= build(); }`), the function it calls is rewritten
 * so that every schema it makes is a stand-in, built when first touched. Returns the count per memo.
 */
export function lazyBuildFunctions(
  source: string,
  fileName: string,
  memos: readonly string[],
): { code: string; lazy: Record<string, number> } {
  const file = parse(source, fileName);
  const functions = new Map<string, ts.FunctionDeclaration>();
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) functions.set(statement.name.text, statement);
  }
  const fail: (node: ts.Node, what: string) => never = (node, what) => {
    throw new UnexpectedSdkShape(fileName, file, node, what);
  };
  const edits: Edit[] = [];
  const lazy: Record<string, number> = {};
  for (const memoName of memos) {
    const memo = functions.get(memoName);
    if (!memo?.body) return fail(file, `no function ${memoName}`);
    // `return memo ??= build();`
    const [only] = memo.body.statements;
    const assignment =
      memo.body.statements.length === 1 && only && ts.isReturnStatement(only) ? only.expression : undefined;
    const call =
      assignment &&
      ts.isBinaryExpression(assignment) &&
      assignment.operatorToken.kind === ts.SyntaxKind.QuestionQuestionEqualsToken
        ? assignment.right
        : undefined;
    if (!call || !ts.isCallExpression(call) || !ts.isIdentifier(call.expression) || call.arguments.length) {
      return fail(memo, `${memoName} is not \`return memo ??= build()\``);
    }
    const builderName = call.expression.text;
    const builder = functions.get(builderName);
    if (!builder?.body) return fail(call, `no function ${builderName}`);
    const body = builder.body.statements;
    const scope = new ScopeRewrite(source, file, fileName, new Set(['z']), false);
    // Helper functions are hoisted: known as makers before any const refers to them.
    for (const statement of body) {
      if (ts.isFunctionDeclaration(statement) && statement.name) scope.makers.add(statement.name.text);
    }
    for (const [index, statement] of body.entries()) {
      if (ts.isFunctionDeclaration(statement)) continue;
      if (ts.isVariableStatement(statement)) {
        for (const { name, init } of constDeclarations(statement, fail)) scope.declaration(name, init);
        continue;
      }
      // The last statement returns the set: an object literal of schemas.
      const returned =
        index === body.length - 1 && ts.isReturnStatement(statement) ? statement.expression : undefined;
      if (!returned || !ts.isObjectLiteralExpression(returned)) {
        return fail(statement, `an unexpected ${ts.SyntaxKind[statement.kind]} in ${builderName}()`);
      }
      scope.objectMembers(returned, `${builderName}()`);
    }
    edits.push(...scope.edits);
    lazy[memoName] = scope.lazy;
  }
  if (source.includes(LAZY_HELPER_NAME)) fail(file, `the source already uses the name ${LAZY_HELPER_NAME}`);
  return { code: applyEdits(source, edits) + LAZY_HELPER, lazy };
}
