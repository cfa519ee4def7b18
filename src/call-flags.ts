/**
 * How `call <tool>` turns a tool's arguments into flags and speaks of them: `--max-input-price`
 * (also `--maxInputPrice`, the schema's spelling, which the README and tool listings show), and
 * what to say for a tool name that does not exist.
 */

import { ownCommand } from './own-command.js';
import { editDistance } from './text/edit-distance.js';
import { echoValue } from './text/redact.js';

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
      edits: editDistance(typed.toLowerCase(), tool),
    }))
    .filter(({ shared, edits }) => shared > 0 || edits <= Math.max(2, Math.floor(typed.length / 3)))
    .sort((x, y) => y.shared - x.shared || x.edits - y.edits);
  return ranked[0]?.tool;
}

/** For `call <typo>`: it is not a tool, which one it probably meant, and which there are. */
export function unknownToolMessage(
  typed: string,
  tools: readonly string[],
  secrets: readonly string[] = [],
): string {
  const closest = closestTool(typed, tools);
  const guess = closest ? ` Did you mean ${closest}?` : '';
  // The user's own text, echoed: no escape sequence or line break in it may act on the terminal.
  return `unknown tool '${echoValue(typed, secrets)}'.${guess} The tools are ${tools.join(', ')}; \`${ownCommand('call <tool> --help')}\` lists a tool's flags.`;
}

/** For `call` with no tool: what is missing, and the tools there are. */
export function missingToolMessage(tools: readonly string[]): string {
  return `call needs the name of a tool: one of ${tools.join(', ')}. For example \`${ownCommand('call search_models --sandbox')}\`; \`${ownCommand('call <tool> --help')}\` lists a tool's flags.`;
}

/** The words of a flag or argument name: `--maxInputPrice` and `max-input-price` → max, input, price. */
function nameWords(name: string): string[] {
  return kebabFlag(name.replace(/^-+/, ''))
    .toLowerCase()
    .split(/[-_\s]+/)
    .filter(Boolean);
}

/** One word for another: the same, or its plural (`model`, `models`). */
function sameWord(a: string, b: string): boolean {
  return a === b || a === `${b}s` || b === `${a}s`;
}

/**
 * The known flag most like an unknown one, for "did you mean". First the flags that share the typed
 * one's last word, its noun (`--max-price` → `--max-input-price`, `--watch-interval` → `--interval`,
 * but not `--stale-max-age`), the most words shared first; else one a few edits away (`--limt` →
 * `--limit`). Commander's own suggestion allows two edits and nothing else, which misses the first
 * kind entirely. With `spelling: false`, only the first kind. None when nothing is close.
 */
export function closestFlag(
  typed: string,
  flags: readonly string[],
  { spelling = true }: { spelling?: boolean } = {},
): string | undefined {
  const words = nameWords(typed);
  const noun = words.at(-1);
  if (noun === undefined) return undefined;
  const bare = words.join('-');
  const ranked = flags
    .map((flag) => {
      const theirs = nameWords(flag);
      return {
        flag,
        nounShared: theirs.some((w) => sameWord(w, noun)),
        shared: words.filter((w) => theirs.some((t) => sameWord(t, w))).length,
        edits: editDistance(bare, theirs.join('-')),
      };
    })
    .filter(
      ({ nounShared, edits }) =>
        nounShared || (spelling && edits <= Math.max(2, Math.floor(bare.length / 3))),
    )
    .sort((x, y) => Number(y.nounShared) - Number(x.nounShared) || y.shared - x.shared || x.edits - y.edits);
  return ranked[0]?.flag;
}

/** A tool as `call` knows it: its name and each argument with the description its schema gives. */
export interface ToolFlags {
  name: string;
  arguments: ReadonlyArray<{ name: string; description: string | undefined }>;
  required: readonly string[];
}

/** The words of a description, lowercased: "Vendor slug, e.g. openai." → vendor, slug, e, g, openai. */
function descriptionWords(description: string | undefined): string[] {
  return (description ?? '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * For `call <tool>`: the tool's flags an unknown one most likely means, judged by what the arguments
 * are about, since their spelling cannot tie `--model` to `--id`. The first of these that finds any:
 * - the arguments that another tool's argument of the typed name is described by (search_models
 *   `--model` → `--vendor`: list_model_changes' `model` is a "Vendor slug");
 * - the arguments whose description names the typed word (list_model_changes `--vendor` →
 *   `--model`, a "Vendor slug");
 * - the tool's one required argument, when the typed word is in the tool's name (get_model
 *   `--model` → `--id`).
 * Each as the kebab-case flag; none when nothing fits.
 */
export function flagsMeant(typed: string, tool: ToolFlags, tools: readonly ToolFlags[]): string[] {
  const noun = nameWords(typed).at(-1);
  if (noun === undefined) return [];
  const named = tool.arguments.filter((a) => descriptionWords(a.description).some((w) => sameWord(w, noun)));
  const elsewhere = tools
    .filter((other) => other.name !== tool.name)
    .flatMap((other) =>
      other.arguments.filter((a) => nameWords(a.name).join('-') === nameWords(typed).join('-')),
    )
    .flatMap((other) => descriptionWords(other.description));
  const describing = tool.arguments.filter((a) => elsewhere.some((w) => sameWord(w, a.name.toLowerCase())));
  const own =
    tool.required.length === 1 && nameWords(tool.name).some((w) => sameWord(w, noun)) ? tool.required : [];
  // The strongest evidence first: what the flag means where it exists, then words, then the tool's name.
  const found = (describing.length ? describing : named).map((a) => a.name);
  return (found.length ? found : own).map((name) => `--${kebabFlag(name)}`);
}
