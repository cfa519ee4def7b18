/**
 * How `call <tool>` turns a tool's arguments into flags and speaks of them: `--max-input-price`
 * (also `--maxInputPrice`, the schema's spelling, which the README and tool listings show), and
 * what to say for a tool name that does not exist.
 */

import { oneLine } from './text/terminal.js';

/** `maxInputPrice` → `max-input-price`: a tool argument as a conventional flag. */
export function kebabFlag(argument: string): string {
  return argument.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The flag the user typed for each argument, as messages should name it: `--maxInputPrice` when
 * that spelling came last in argv (commander lets the last one win), else `--max-input-price`.
 */
export function typedFlags(argv: readonly string[], names: readonly string[]): Record<string, string> {
  const lastIndex = (flag: string): number =>
    argv.findLastIndex((arg) => arg === flag || arg.startsWith(`${flag}=`));
  return Object.fromEntries(
    names.map((name) => {
      const kebab = `--${kebabFlag(name)}`;
      const camel = `--${name}`;
      return [name, camel !== kebab && lastIndex(camel) > lastIndex(kebab) ? camel : kebab];
    }),
  );
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Words two tool names share, `model` and `models` counting as one. */
function sharedWords(a: string, b: string): number {
  const words = (name: string) =>
    name
      .toLowerCase()
      .split(/[_\-\s]+/)
      .filter(Boolean);
  const other = words(b);
  return words(a).filter((w) => other.some((o) => o.startsWith(w) || w.startsWith(o))).length;
}

/**
 * The tool most like what was typed: the most words in common, then the fewest edits. None when
 * nothing is close: no word shared and more than a third of the name would have to change.
 */
export function closestTool(typed: string, tools: readonly string[]): string | undefined {
  const ranked = tools
    .map((tool) => ({
      tool,
      shared: sharedWords(typed, tool),
      edits: levenshtein(typed.toLowerCase(), tool),
    }))
    .filter(({ shared, edits }) => shared > 0 || edits <= Math.max(2, Math.floor(typed.length / 3)))
    .sort((x, y) => y.shared - x.shared || x.edits - y.edits);
  return ranked[0]?.tool;
}

/** For `call <typo>`: it is not a tool, which one it probably meant, and which there are. */
export function unknownToolMessage(typed: string, tools: readonly string[]): string {
  const closest = closestTool(typed, tools);
  const guess = closest ? ` Did you mean ${closest}?` : '';
  // The user's own text, echoed: no escape sequence or line break in it may act on the terminal.
  return `unknown tool '${oneLine(typed)}'.${guess} The tools are ${tools.join(', ')}; \`model-feed-mcp call <tool> --help\` lists a tool's flags.`;
}
