import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import {
  compileIgnore,
  MAX_GLOB_RULES,
  MAX_RULE_CHARS,
  MAX_RULES,
  matchPart,
} from '../../src/check/ignore-rules.js';

/** Ordinary rules, as real .gitignore files write them. */
const RULES = [
  '# a comment',
  '',
  'node_modules',
  'dist/',
  '*.log',
  '!keep.log',
  '/root-only.txt',
  'docs/*.md',
  '!docs/README.md',
  '**/cache/**',
  'a/**/z.txt',
  '*.tar.gz',
  'tmp?',
  '[Bb]uild/',
  '*~',
  '\\#hash',
  '.env*',
  'trailing-space   ',
  'x[!0-9].txt',
  'logs/**',
];

const PATHS: [string, boolean][] = [
  ['node_modules', true],
  ['pkg/node_modules', true],
  ['dist', true],
  ['dist', false],
  ['src/dist', true],
  ['debug.log', false],
  ['src/deep/debug.log', false],
  ['keep.log', false],
  ['root-only.txt', false],
  ['src/root-only.txt', false],
  ['docs/a.md', false],
  ['docs/README.md', false],
  ['docs/sub/a.md', false],
  ['x/cache/y.js', false],
  ['cache/y.js', false],
  ['cache', true],
  ['a/z.txt', false],
  ['a/b/c/z.txt', false],
  ['b/a/z.txt', false],
  ['pkg.tar.gz', false],
  ['tmp1', false],
  ['tmp', false],
  ['Build', true],
  ['build', true],
  ['BUILD', true],
  ['notes.txt~', false],
  ['#hash', false],
  ['.env', false],
  ['.env.local', false],
  ['trailing-space', false],
  ['xa.txt', false],
  ['x1.txt', false],
  ['logs', true],
  ['logs/a.txt', false],
  ['src/app.py', false],
];

describe('ignore rules', () => {
  it('give the verdicts of the ignore package (gitignore semantics) on ordinary rules', () => {
    const ours = compileIgnore(RULES.join('\n')).matcher;
    const reference = ignore({ allowRelativePaths: true, ignorecase: false }).add(RULES.join('\n'));
    for (const [path, isFolder] of PATHS) {
      const expected = reference.test(isFolder ? `${path}/` : path);
      const verdict = expected.ignored ? 'ignored' : expected.unignored ? 'unignored' : undefined;
      expect(ours.test(path, isFolder), `${path}${isFolder ? '/' : ''}`).toBe(verdict);
    }
  });

  it('match a long run of stars without a regular expression, a stack, or time to spare', () => {
    const rule = 'a*'.repeat(10_000);
    expect(rule.length).toBeGreaterThan(MAX_RULE_CHARS);
    const compiled = compileIgnore(`${'a*'.repeat(2000)}\n`);
    expect(compiled.leftOut).toBe(0);
    expect(compiled.matcher.test('a'.repeat(200), false)).toBe(undefined);
    expect(compiled.matcher.test('a'.repeat(2000), false)).toBe('ignored');
    // Past the length limit, a rule is left out and counted, never compiled.
    expect(compileIgnore(rule).leftOut).toBe(1);
    expect(matchPart('*a*a*a*a*a*a*a*a*b', 'a'.repeat(4000))).toBe(false);
  });

  it('bound the rules kept, counting those left out', () => {
    const names = Array.from({ length: MAX_RULES + 5 }, (_, i) => `name${i}`);
    expect(compileIgnore(names.join('\n')).leftOut).toBe(5);
    const globs = Array.from({ length: MAX_GLOB_RULES + 3 }, (_, i) => `?g${i}`);
    const compiled = compileIgnore(globs.join('\n'));
    expect(compiled.leftOut).toBe(3);
    expect(compiled.matcher.test(`ag${MAX_GLOB_RULES - 1}`, false)).toBe('ignored');
    expect(compiled.matcher.test(`ag${MAX_GLOB_RULES}`, false)).toBe(undefined);
  });
});
