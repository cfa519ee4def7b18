/**
 * One ignore file's rules (`.gitignore` syntax), compiled once into one matcher. Written here
 * rather than taken from the `ignore` package, whose rules are regular expressions tried one after
 * another for every path: work that grows as a tree's files times a file's rules, and a long rule (`a*` 10,000 times) overflowed V8's stack compiling its expression.
 *
 * - Plain names (`node_modules`, `.env`, `dist/`) are looked up by name, `*.ext` rules by the
 *   extension: nearly every real rule, at the cost of one lookup whatever their number.
 * - The rest are matched by a glob matcher without expressions or recursion: `*` and `?` within a
 *   part of the path, `**` across parts, `[…]` classes, `\` escapes; two pointers that step back
 *   to the last star, so time is bounded by the rule's length times the path's, never exponential.
 *   They are bounded in number (MAX_GLOB_RULES) and in length (MAX_RULE_CHARS); the rest are left
 *   out and counted, for the report to say.
 *
 * Semantics are git's (gitignore(5)): the last rule that matches decides, `!` brings a path back, a
 * trailing `/` matches folders only, a rule with a `/` before its end is anchored to the ignore
 * file's folder, one without matches a name at any depth. Case-sensitive, as git is on Linux.
 */

/** A rule longer than this is left out: git's own paths stop at 4,096 bytes. */
export const MAX_RULE_CHARS = 4096;
/** Rules with wildcards beyond names and extensions, per ignore file; the rest are left out. */
export const MAX_GLOB_RULES = 1000;
/** Rules of any kind per ignore file; the rest are left out (real files hold a few hundred). */
export const MAX_RULES = 10_000;

interface Rule {
  /** Its place in the file: the last rule that matches decides. */
  order: number;
  negated: boolean;
  folderOnly: boolean;
}

interface GlobRule extends Rule {
  /** The pattern's parts between slashes; a part `**` matches any number of path parts. */
  parts: string[];
  /** Matches the last part of a path only (no `/` in the rule but a trailing one). */
  nameOnly: boolean;
}

export interface IgnoreMatcher {
  /** `ignored`, `unignored` (a `!` rule matched last), or undefined when no rule matches. */
  test(path: string, isFolder: boolean): 'ignored' | 'unignored' | undefined;
}

export interface CompiledIgnore {
  matcher: IgnoreMatcher;
  /** Rules left out: too long, or past MAX_GLOB_RULES. */
  leftOut: number;
}

const WILDCARD = /[*?[\\]/;

/** Removes trailing spaces that are not escaped (git's rule), and a trailing CR. */
function trimRule(line: string): string {
  let end = line.length;
  if (line.endsWith('\r')) end--;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/** Whether `c` is in the class `pattern[start…end)` (the text between `[` and `]`). */
function inClass(pattern: string, start: number, end: number, c: string): boolean {
  let i = start;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  let found = false;
  while (i < end) {
    let low = pattern[i]!;
    if (low === '\\' && i + 1 < end) low = pattern[++i]!;
    i++;
    if (pattern[i] === '-' && i + 1 < end) {
      let high = pattern[i + 1]!;
      if (high === '\\' && i + 2 < end) {
        high = pattern[i + 2]!;
        i++;
      }
      i += 2;
      if (low <= c && c <= high) found = true;
    } else if (low === c) found = true;
  }
  return found !== negated;
}

/** Where the class opened at `start` (`[`) closes: the index of its `]`, or -1 if it does not. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  // A `]` first in the class is one of its characters.
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return -1;
}

/**
 * Whether one part of a path (no `/`) matches one part of a pattern: `*`, `?`, `[…]`, `\x`. On a
 * mismatch after a star it starts again one character further from that star (the classic two
 * pointers): at most the pattern's length times the text's steps.
 */
export function matchPart(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (c === '*') {
      while (pattern[p] === '*') p++;
      starP = p;
      starT = t;
      continue;
    }
    let matched = false;
    let next = p + 1;
    if (c === '?') matched = true;
    else if (c === '[') {
      const end = classEnd(pattern, p);
      if (end === -1) matched = text[t] === '[';
      else {
        matched = inClass(pattern, p + 1, end, text[t]!);
        next = end + 1;
      }
    } else if (c === '\\' && p + 1 < pattern.length) {
      matched = pattern[p + 1] === text[t];
      next = p + 2;
    } else if (c !== undefined) matched = c === text[t];
    if (matched) {
      p = next;
      t++;
      continue;
    }
    if (starP === -1) return false;
    p = starP;
    t = ++starT;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * Whether a path's parts match a pattern's parts, `**` matching any number of path parts (the same
 * two pointers, one level up). A trailing `**` matches at least one part: `foo/**` is what is inside
 * `foo`, not `foo` itself.
 */
export function matchParts(pattern: readonly string[], path: readonly string[]): boolean {
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < path.length) {
    if (pattern[p] === '**') {
      while (pattern[p] === '**') p++;
      if (p === pattern.length) return true;
      starP = p;
      starT = t;
      continue;
    }
    if (p < pattern.length && matchPart(pattern[p]!, path[t]!)) {
      p++;
      t++;
      continue;
    }
    if (starP === -1) return false;
    p = starP;
    t = ++starT;
  }
  return p === pattern.length;
}

/** Unescapes a rule that has no wildcard but `\`: `\#`, `\!`, `\ `. */
const withoutEscapes = (text: string) => text.replace(/\\(.)/g, '$1');

export function compileIgnore(text: string): CompiledIgnore {
  const byName = new Map<string, Rule[]>();
  const byExtension = new Map<string, Rule[]>();
  const globs: GlobRule[] = [];
  let leftOut = 0;
  let order = 0;
  const add = (map: Map<string, Rule[]>, key: string, rule: Rule) => {
    const held = map.get(key);
    if (held) held.push(rule);
    else map.set(key, [rule]);
  };
  for (const line of text.split('\n')) {
    let rule = trimRule(line);
    if (!rule || rule.startsWith('#')) continue;
    if (rule.length > MAX_RULE_CHARS || order >= MAX_RULES) {
      leftOut++;
      continue;
    }
    const negated = rule.startsWith('!');
    if (negated) rule = rule.slice(1);
    const folderOnly = rule.endsWith('/') && !rule.endsWith('\\/');
    if (folderOnly) rule = rule.slice(0, -1);
    if (!rule) continue;
    const base = { order: order++, negated, folderOnly };
    const slash = rule.indexOf('/');
    if (slash === -1) {
      if (!WILDCARD.test(rule) || !/[*?[]/.test(rule.replace(/\\./g, ''))) {
        add(byName, withoutEscapes(rule), base);
        continue;
      }
      // `*.log`: a star, then an extension with nothing special in it.
      if (/^\*\.[^*?[\\/.]+$/.test(rule)) {
        add(byExtension, rule.slice(1), base);
        continue;
      }
    }
    if (globs.length >= MAX_GLOB_RULES) {
      leftOut++;
      continue;
    }
    const anchored = slash !== -1;
    const parts = (rule.startsWith('/') ? rule.slice(1) : rule).split('/');
    globs.push({ ...base, parts, nameOnly: !anchored });
  }

  const matcher: IgnoreMatcher = {
    test(path, isFolder) {
      const parts = path.split('/');
      const name = parts[parts.length - 1]!;
      let best: Rule | undefined;
      const consider = (rules: readonly Rule[] | undefined) => {
        for (const rule of rules ?? []) {
          if (rule.folderOnly && !isFolder) continue;
          if (!best || rule.order > best.order) best = rule;
        }
      };
      consider(byName.get(name));
      const dot = name.lastIndexOf('.');
      if (dot > 0 || (dot === 0 && name.length > 1)) consider(byExtension.get(name.slice(dot)));
      // The last glob first: the first that matches is the last in the file; one before a rule
      // already found cannot change the verdict.
      for (let i = globs.length - 1; i >= 0; i--) {
        const rule = globs[i]!;
        if (best && rule.order < best.order) break;
        if (rule.folderOnly && !isFolder) continue;
        const matched = rule.nameOnly ? matchPart(rule.parts[0]!, name) : matchParts(rule.parts, parts);
        if (matched) {
          best = rule;
          break;
        }
      }
      if (!best) return undefined;
      return best.negated ? 'unignored' : 'ignored';
    },
  };
  return { matcher, leftOut };
}
