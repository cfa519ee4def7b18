import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Relative imports of one file. Type-only and dynamic ones count: a type import still ties the two
 * files together, and a lazy `import()` is an arrow that only points later.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

describe('the import graph of src/', () => {
  it('has no circle: every arrow points one way (shared types live in modules both sides import)', () => {
    const files = sourceFiles(SRC);
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const named = cycles(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '));
    expect(named).toEqual([]);
    // The walk sees the arrows it should, the lazy ones included.
    expect(graph.get(join(SRC, 'log.ts'))).toContain(join(SRC, 'log-options.ts'));
    expect(graph.get(join(SRC, 'commands/call/command.ts'))).toContain(join(SRC, 'commands/call/run.ts'));
  });

  it('the core imports nothing from an outer room', () => {
    const core = [
      'mcp-server.ts',
      'mcp-server-deps.ts',
      'tools/',
      'resources/',
      'prompts/',
      'api/',
      'net/',
      'store/',
    ];
    const outer = [
      'watch/',
      'check/',
      'setup/',
      'sandbox/',
      'doctor/',
      'http/',
      'commands/',
      'public/',
      'cli',
    ];
    const inRoom = (file: string, rooms: string[]) =>
      rooms.some((room) => relative(SRC, file).startsWith(room));
    const files = sourceFiles(SRC);
    const crossings = files
      .filter((file) => inRoom(file, core))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => inRoom(target, outer))
          .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
      );
    expect(crossings).toEqual([]);
    // The rooms are where the test looks for them.
    expect(files.filter((file) => inRoom(file, core)).length).toBeGreaterThan(40);
    expect(importsOf(join(SRC, 'http/endpoint.ts'))).toContain(join(SRC, 'resources/listen.ts'));
  });
});
