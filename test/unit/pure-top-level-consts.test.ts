import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { pureTopLevelConsts } from '../../scripts/pure-top-level-consts.js';

describe('pureTopLevelConsts (the build step that lets esbuild drop unused SDK schemas)', () => {
  it('wraps computed initialisers and leaves literals and functions alone', () => {
    const source = [
      "export const A = make('a');",
      'const B = A.extend({ b: make("b") });',
      "export const C = 'literal';",
      'export const D = (x) => x;',
      "export const E = ['x', 'y'];",
      'let F = make("f");',
    ].join('\n');
    const { code, wrapped } = pureTopLevelConsts(source, 'sample.js');
    expect(wrapped).toBe(2);
    expect(code).toContain("export const A = /* @__PURE__ */ (() => (make('a')))();");
    expect(code).toContain('const B = /* @__PURE__ */ (() => (A.extend({ b: make("b") })))();');
    expect(code).toContain("export const C = 'literal';");
    expect(code).toContain('export const D = (x) => x;');
    expect(code).toContain('let F = make("f");');
  });

  it('keeps the order and the values of what it wraps', () => {
    const source = 'const A = log("a", 1);\nconst B = log("b", A + 1);\nresult.push(A, B);';
    const { code } = pureTopLevelConsts(source, 'order.js');
    const calls: string[] = [];
    const result: number[] = [];
    new Function('log', 'result', code)((name: string, value: number) => {
      calls.push(name);
      return value;
    }, result);
    expect(calls).toEqual(['a', 'b']);
    expect(result).toEqual([1, 2]);
  });

  it('lets esbuild drop what nothing uses, and only that', async () => {
    const { code } = pureTopLevelConsts(
      'const Used = make("used");\nconst Unused = make("unused");\nconst Derived = Used.extend();',
      'shake.js',
    );
    const out = await build({
      stdin: { contents: `${code}\nconsole.log(Used);`, loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
    });
    const text = out.outputFiles[0]?.text ?? '';
    expect(text).toContain('"used"');
    expect(text).not.toContain('"unused"');
    expect(text).not.toContain('extend');
  });

  it("handles the SDK's types.js as installed: many schemas, valid JavaScript", async () => {
    // The ES module build, which the bundle takes (tsup.config.ts matches its path).
    const file = fileURLToPath(
      new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.js', import.meta.url),
    );
    const { code, wrapped } = pureTopLevelConsts(readFileSync(file, 'utf8'), file);
    expect(wrapped).toBeGreaterThan(100);
    await expect(
      build({ stdin: { contents: code, loader: 'js' }, write: false, format: 'esm' }),
    ).resolves.toBeDefined();
  });
});
