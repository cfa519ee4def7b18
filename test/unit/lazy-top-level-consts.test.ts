import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyTopLevelConsts } from '../../scripts/lazy-top-level-consts.js';

/** Runs a transformed module body (no imports or exports) with `scope` in reach; returns `result`. */
function run(code: string, scope: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  new Function(...Object.keys(scope), 'result', code)(...Object.values(scope), result);
  return result;
}

describe('lazyTopLevelConsts (the build step for the SDK protocol schemas)', () => {
  it('makes …Schema consts lazy, other computed consts pure, and leaves literals and functions alone', () => {
    const source = [
      "export const ASchema = make('a');",
      'const BSchema = ASchema.extend({ b: make("b") });',
      'export const VERSIONS = [LATEST, "2025-06-18"];',
      "export const C = 'literal';",
      'export const D = (x) => x;',
      "export const E = ['x', 'y'];",
      'let F = make("f");',
    ].join('\n');
    const { code, lazy, pure } = lazyTopLevelConsts(source, 'sample.js');
    expect([lazy, pure]).toEqual([2, 1]);
    expect(code).toContain("export const ASchema = /* @__PURE__ */ __lazySchema(() => (make('a')));");
    expect(code).toContain(
      'const BSchema = /* @__PURE__ */ __lazySchema(() => (ASchema.extend({ b: make("b") })));',
    );
    expect(code).toContain('export const VERSIONS = /* @__PURE__ */ (() => ([LATEST, "2025-06-18"]))();');
    expect(code).toContain("export const C = 'literal';");
    expect(code).toContain('export const D = (x) => x;');
    expect(code).toContain('let F = make("f");');
  });

  it('builds a schema on first touch, once, and the stand-in parses, extends and reads as the schema', () => {
    const built: string[] = [];
    const { code } = lazyTopLevelConsts(
      [
        'const ItemSchema = (log.push("item"), z.object({ id: z.string(), method: z.literal("ping") }));',
        'const ListSchema = (log.push("list"), z.object({ items: z.array(ItemSchema) }));',
        'result.item = ItemSchema; result.list = ListSchema;',
      ].join('\n'),
      'lazy.js',
    );
    const { item, list } = run(code, { z, log: built }) as { item: z.ZodObject; list: z.ZodObject };
    expect(built).toEqual([]);
    expect(list.safeParse({ items: [{ id: 'a', method: 'ping' }] }).success).toBe(true);
    // Building the list schema touched the item schema: both built, each once.
    expect(built).toEqual(['list', 'item']);
    expect(item.safeParse({ id: 1 }).success).toBe(false);
    expect(item.shape.method.value).toBe('ping');
    expect('_zod' in item).toBe(true);
    expect(item instanceof z.ZodObject).toBe(true);
    expect(item.extend({ extra: z.number() }).parse({ id: 'b', method: 'ping', extra: 2 })).toEqual({
      id: 'b',
      method: 'ping',
      extra: 2,
    });
    expect(built).toEqual(['list', 'item']);
  });

  it('keeps the order and the values of the consts it makes pure', () => {
    const source = 'const A = log("a", 1);\nconst B = log("b", A + 1);\nresult.values = [A, B];';
    const calls: string[] = [];
    const log = (name: string, value: number) => {
      calls.push(name);
      return value;
    };
    expect(run(lazyTopLevelConsts(source, 'order.js').code, { log }).values).toEqual([1, 2]);
    expect(calls).toEqual(['a', 'b']);
  });

  it('lets esbuild drop what nothing uses, and only that', async () => {
    const { code } = lazyTopLevelConsts(
      'const UsedSchema = make("used");\nconst UnusedSchema = make("unused");\nconst DerivedSchema = UsedSchema.extend();\nconst Unused = make("plain");',
      'shake.js',
    );
    const out = await build({
      stdin: { contents: `${code}\nconsole.log(UsedSchema);`, loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
    });
    const text = out.outputFiles[0]?.text ?? '';
    expect(text).toContain('"used"');
    expect(text).not.toContain('"unused"');
    expect(text).not.toContain('"plain"');
    expect(text).not.toContain('extend');
  });

  it("handles the SDK's types.js as installed: many schemas, valid JavaScript", async () => {
    // The ES module build, which the bundle takes (tsup.config.ts matches its path).
    const file = fileURLToPath(
      new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.js', import.meta.url),
    );
    const { code, lazy } = lazyTopLevelConsts(readFileSync(file, 'utf8'), file);
    expect(lazy).toBeGreaterThan(100);
    await expect(
      build({ stdin: { contents: code, loader: 'js' }, write: false, format: 'esm' }),
    ).resolves.toBeDefined();
  });
});
