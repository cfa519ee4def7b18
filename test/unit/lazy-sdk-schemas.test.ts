import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyBuildFunctions, lazyModuleSchemas } from '../../scripts/lazy-sdk-schemas.js';

/** Runs transformed code (no imports or exports) with `scope` in reach; returns `result`. */
function run(code: string, scope: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  new Function(...Object.keys(scope), 'result', code)(...Object.values(scope), result);
  return result;
}

/** zod, plus `z.named(name, schema)`, which notes when a schema is built. */
function loggingZod(log: string[]) {
  return {
    ...z,
    named: <T>(name: string, schema: T): T => {
      log.push(name);
      return schema;
    },
  };
}

/** An SDK file as installed, found by the name it starts with (the hash after it changes). */
function installed(dir: string, prefix: string): { file: string; source: string } {
  const folder = fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${dir}/`, import.meta.url));
  const name = readdirSync(folder).find((entry) => entry.startsWith(prefix) && entry.endsWith('.mjs'));
  if (!name) throw new Error(`no ${prefix}*.mjs in ${folder}`);
  return { file: folder + name, source: readFileSync(folder + name, 'utf8') };
}

describe('lazyModuleSchemas (core: schemas built at module load)', () => {
  it('makes schema consts pure stand-ins and leaves literals alone', () => {
    const source = [
      "const LATEST = '2025-11-25';",
      "const VERSIONS = [LATEST, '2025-06-18'];",
      'const CODE = -32600;',
      'const ASchema = z.string();',
      'const BSchema = ASchema.optional();',
      'const AliasSchema = BSchema;',
    ].join('\n');
    const { code, lazy } = lazyModuleSchemas(source, 'sample.mjs');
    expect(lazy).toBe(2);
    expect(code).toContain("const VERSIONS = [LATEST, '2025-06-18'];");
    expect(code).toContain('const ASchema = /* @__PURE__ */ __lazySdkSchema(() => (z.string()));');
    expect(code).toContain('const BSchema = /* @__PURE__ */ __lazySdkSchema(() => (ASchema.optional()));');
    expect(code).toContain('const AliasSchema = BSchema;');
  });

  it('fails on what it does not know, naming the line', () => {
    expect(() => lazyModuleSchemas('const A = 1;\nconst B = compute();', 'odd.mjs')).toThrow(
      /odd\.mjs:2: B is not built from zod or a known schema/,
    );
    expect(() => lazyModuleSchemas('let ASchema = z.string();', 'let.mjs')).toThrow(/let\.mjs:1: a `let`/);
    expect(() => lazyModuleSchemas('register(z.string());', 'call.mjs')).toThrow(
      /an unexpected ExpressionStatement/,
    );
  });

  it('refuses what a schema yields that is no schema: a stand-in for it would not be what it stands for', () => {
    const level = "import * as z from 'zod';\nconst LevelSchema = z.enum(['a', 'b']);\n";
    expect(() => lazyModuleSchemas(`${level}const LEVELS = LevelSchema.options;`, 'options.mjs')).toThrow(
      /options\.mjs:3: reads \.options of a schema/,
    );
    expect(() =>
      lazyModuleSchemas(`${level}const isLevel = LevelSchema.safeParse.bind(LevelSchema);`, 'bind.mjs'),
    ).toThrow(/bind\.mjs:3: calls \.bind of a schema/);
    expect(() => lazyModuleSchemas(`${level}const first = LevelSchema.options[0];`, 'element.mjs')).toThrow(
      /element\.mjs:3: reads an element of a schema/,
    );
  });

  it('builds a schema on first touch, once, and the stand-in parses, extends and reads as the schema', () => {
    const built: string[] = [];
    const { code } = lazyModuleSchemas(
      [
        "const ItemSchema = z.named('item', z.object({ id: z.string(), method: z.literal('ping') }));",
        "const ListSchema = z.named('list', z.object({ items: z.array(ItemSchema) }));",
      ].join('\n'),
      'touch.mjs',
    );
    const { item, list } = run(`${code}\nresult.item = ItemSchema; result.list = ListSchema;`, {
      z: loggingZod(built),
    }) as { item: z.ZodObject; list: z.ZodObject };
    expect(built).toEqual([]);
    expect(list.safeParse({ items: [{ id: 'a', method: 'ping' }] }).success).toBe(true);
    expect([...built].sort()).toEqual(['item', 'list']);
    expect(item.safeParse({ id: 1 }).success).toBe(false);
    expect(item.shape.method.value).toBe('ping');
    expect(item instanceof z.ZodObject).toBe(true);
    expect({ ...item.shape }).toHaveProperty('id');
    expect(item.extend({ extra: z.number() }).parse({ id: 'b', method: 'ping', extra: 2 })).toEqual({
      id: 'b',
      method: 'ping',
      extra: 2,
    });
    expect([...built].sort()).toEqual(['item', 'list']);
  });

  it('lets esbuild drop the schemas nothing uses', async () => {
    const { code } = lazyModuleSchemas(
      "const UsedSchema = z.string('used');\nconst UnusedSchema = z.string('unused');\nconst DerivedSchema = UsedSchema.optional();",
      'shake.mjs',
    );
    const out = await build({
      stdin: { contents: `${code}\nconsole.log(UsedSchema);`, loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
    });
    const text = out.outputFiles[0]?.text ?? '';
    expect(text).toContain('"used"');
    expect(text).not.toContain('unused');
    expect(text).not.toContain('optional');
  });
});

describe('lazyBuildFunctions (server: each era’s wire schemas, built by one function)', () => {
  const era = [
    'function build() {',
    "  const MetaSchema = z.named('meta', z.looseObject({ token: z.string().optional() }));",
    '  const wrap = (shape) => z.object({ _meta: MetaSchema.optional(), ...shape });',
    '  function request(method, shape) {',
    '    return z.object({ method: z.literal(method), params: wrap(shape) });',
    '  }',
    "  const retryShape = { state: z.named('state', z.string().optional()) };",
    "  const CallSchema = z.named('call', request('tools/call', { name: z.string(), ...retryShape }));",
    "  const ListSchema = z.named('list', request('tools/list', {}));",
    "  const dispatch = { 'tools/call': CallSchema, 'tools/list': ListSchema, ping: request('ping', {}) };",
    "  return { MetaSchema, CallSchema, dispatch, PingResultSchema: z.named('ping', z.object({})) };",
    '}',
    'let memo;',
    'function buildSchemasEra() {',
    '  return memo ??= build();',
    '}',
  ].join('\n');

  it('builds nothing with the set, and then only what is touched', () => {
    const built: string[] = [];
    const { code, lazy } = lazyBuildFunctions(era, 'era.mjs', ['buildSchemasEra']);
    expect(lazy).toEqual({ buildSchemasEra: 6 });
    const { set } = run(`${code}\nresult.set = buildSchemasEra();`, { z: loggingZod(built) }) as {
      set: { dispatch: Record<string, z.ZodType>; PingResultSchema: z.ZodType };
    };
    expect(built).toEqual([]);
    expect(set.dispatch['tools/list']?.safeParse({ method: 'tools/list', params: {} }).success).toBe(true);
    expect(built).toEqual(['meta', 'list']);
    expect(
      set.dispatch['tools/call']?.parse({ method: 'tools/call', params: { name: 'x', state: 's' } }),
    ).toEqual({
      method: 'tools/call',
      params: { name: 'x', state: 's' },
    });
    expect(built).toEqual(['meta', 'list', 'call', 'state']);
    expect(set.PingResultSchema.safeParse({}).success).toBe(true);
    expect(built).toEqual(['meta', 'list', 'call', 'state', 'ping']);
  });

  it('fails when the memo or the builder is not shaped as expected', () => {
    expect(() => lazyBuildFunctions(era, 'era.mjs', ['buildSchemasOther'])).toThrow(
      /no function buildSchemasOther/,
    );
    expect(() =>
      lazyBuildFunctions(era.replace('return memo ??= build();', 'return build();'), 'era.mjs', [
        'buildSchemasEra',
      ]),
    ).toThrow(/buildSchemasEra is not `return memo \?\?= build\(\)`/);
    expect(() =>
      lazyBuildFunctions(
        era.replace('  return { MetaSchema', '  register(MetaSchema);\n  return { MetaSchema'),
        'era.mjs',
        ['buildSchemasEra'],
      ),
    ).toThrow(/era\.mjs:11: an unexpected ExpressionStatement in build\(\)/);
    expect(() =>
      lazyBuildFunctions(era.replace('ping: request', '...other, ping: request'), 'era.mjs', [
        'buildSchemasEra',
      ]),
    ).toThrow(/dispatch has a member that is not a plain property/);
  });
});

describe('the MCP SDK as installed (what tsup.config.ts rewrites)', () => {
  it("rewrites core's schemas and auth modules into valid JavaScript", async () => {
    for (const [prefix, least] of [
      ['schemas-', 150],
      ['auth-', 10],
    ] as const) {
      const { file, source } = installed('core/dist', prefix);
      const { code, lazy } = lazyModuleSchemas(source, file);
      expect(lazy).toBeGreaterThanOrEqual(least);
      await expect(transform(code, { loader: 'js', format: 'esm' })).resolves.toBeDefined();
    }
  });

  it("rewrites the server's two era builders into valid JavaScript", async () => {
    const { file, source } = installed('server/dist', 'src-');
    const { code, lazy } = lazyBuildFunctions(source, file, ['buildSchemas2025', 'buildSchemas2026']);
    expect(lazy.buildSchemas2025).toBeGreaterThanOrEqual(130);
    expect(lazy.buildSchemas2026).toBeGreaterThanOrEqual(150);
    await expect(transform(code, { loader: 'js', format: 'esm' })).resolves.toBeDefined();
  });
});
