/**
 * Codex's ~/.codex/config.toml: our server is the table `[mcp_servers.model-feed]`. The edit is a
 * text edit of that table alone: every other table, comment and blank line stays byte for byte.
 * Keys the user added to our table (`enabled`, `tool_timeout_sec`, …) are kept; comments inside
 * our own table are not.
 *
 * The text scan is simple, so every result is proved before it is returned: the edited file is
 * parsed again (smol-toml) and must hold exactly the intended entry and, apart from it, exactly
 * what the file held before. Anything else is refused, and the file left alone.
 */

import { isDeepStrictEqual } from 'node:util';
import type { FileFormat, FormatLib, ServerEntry } from '../entry.js';
import { envToDrop, SERVER_NAME } from '../entry.js';
import { ConfigParseError, ConfigShapeError } from '../problems.js';

type Table = Record<string, unknown>;

/** Codex's own start-up limit is 10 s; the first `npx` download can take longer. */
export const CODEX_STARTUP_TIMEOUT_S = 30;

function parse(lib: FormatLib, text: string): Table {
  try {
    // Integers beyond 2^53 (valid TOML, up to 2^63) as bigints, so they are read and compared exactly.
    return lib.parseToml(text, { integersAsBigInt: 'asNeeded' }) as Table;
  } catch (error) {
    if (error instanceof lib.TomlError) {
      const detail = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      throw new ConfigParseError(error.line, error.column, redefined(text, error.line) ?? detail);
    }
    throw error;
  }
}

/** For a table header defined a second time on `line` (1-based): both lines, named. */
function redefined(text: string, line: number): string | undefined {
  const lines = text.split('\n');
  const path = headerPath(lines[line - 1] ?? '');
  if (path === undefined) return undefined;
  const first = [...headerLines(lines)].find(
    ([index, other]) => index < line - 1 && isDeepStrictEqual(other, path),
  );
  if (first === undefined) return undefined;
  return `[${path.map(tomlKey).join('.')}] is defined twice, on lines ${first[0] + 1} and ${line}`;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

function tomlString(value: string): string {
  // A JSON string is a TOML basic string, once DEL (which TOML wants escaped) is escaped too.
  return JSON.stringify(value).replace(/\x7f/g, '\\u007F');
}

/** A value as TOML inline syntax (tables inline: a table we rewrite stays one block). */
function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return members.length ? `{ ${members.join(', ')} }` : '{}';
  }
  throw new ConfigShapeError(`cannot write the value ${String(value)} as TOML`);
}

function renderTable(entry: Table, eol: string): string {
  const lines = [`[mcp_servers.${SERVER_NAME}]`];
  for (const [key, value] of Object.entries(entry)) lines.push(`${tomlKey(key)} = ${tomlValue(value)}`);
  return lines.join(eol) + eol;
}

/** The dotted key of a table header line (`[a."b c".d]` → a, b c, d), or undefined for other lines. */
export function headerPath(line: string): string[] | undefined {
  const match = /^\s*\[\[?([^\]]*)\]\]?\s*(#.*)?$/.exec(line);
  if (!match) return undefined;
  const parts: string[] = [];
  const re = /\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(\.|$)/gy;
  const inner = match[1] ?? '';
  let at = 0;
  re.lastIndex = 0;
  while (at < inner.length) {
    const found = re.exec(inner);
    if (found === null) break;
    const [, bare, basic, literal] = found;
    parts.push(bare ?? (basic !== undefined ? (JSON.parse(`"${basic}"`) as string) : (literal ?? '')));
    at = re.lastIndex;
    if (found[4] === '') break;
  }
  return at >= inner.length && parts.length ? parts : undefined;
}

type StringState = 'none' | '"""' | "'''";

/**
 * Where a line leaves the TOML lexer: outside any string, or inside a multi-line one. One-line
 * strings and comments are skipped whole, so quotes inside them (`'''a """ b'''`, `"'''"`,
 * `# """`) open nothing.
 */
function stateAfter(line: string, state: StringState): StringState {
  let i = 0;
  while (i < line.length) {
    if (state !== 'none') {
      if (state === '"""' && line[i] === '\\') {
        i += 2;
      } else if (line.startsWith(state, i)) {
        // Up to two quotes just before the closing three belong to the string: the run ends it.
        while (line[i] === state[0]) i++;
        state = 'none';
      } else {
        i++;
      }
      continue;
    }
    const c = line[i];
    if (c === '#') break;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      state = line.slice(i, i + 3) as StringState;
      i += 3;
    } else if (c === '"') {
      for (i++; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      i = close === -1 ? line.length : close + 1;
    } else {
      i++;
    }
  }
  return state;
}

/** Line indexes of table headers, skipping lines inside multi-line strings. */
function headerLines(lines: readonly string[]): Map<number, string[]> {
  const headers = new Map<number, string[]>();
  let state: StringState = 'none';
  lines.forEach((line, index) => {
    if (state === 'none') {
      const path = headerPath(line);
      if (path) headers.set(index, path);
    }
    state = stateAfter(line, state);
  });
  return headers;
}

const OURS = ['mcp_servers', SERVER_NAME];
const isOurs = (path: readonly string[]): boolean => OURS.every((part, i) => path[i] === part);

/** First and last line of our table (with its sub-tables), without the comments that lead into the next table. */
function findTable(lines: readonly string[]): { first: number; last: number } | undefined {
  const headers = [...headerLines(lines)];
  const start = headers.findIndex(([, path]) => isOurs(path));
  if (start === -1) return undefined;
  const first = headers[start]![0];
  const next = headers.slice(start + 1).find(([, path]) => !isOurs(path));
  let last = (next ? next[0] : lines.length) - 1;
  while (last > first && /^\s*(#.*)?\r?$/.test(lines[last] ?? '')) last--;
  return { first, last };
}

function withoutOurs(doc: Table): Table {
  const servers = doc.mcp_servers as Table | undefined;
  if (servers === undefined) return doc;
  const { [SERVER_NAME]: _ours, ...others } = servers;
  const { mcp_servers: _all, ...rest } = doc;
  return Object.keys(others).length ? { ...rest, mcp_servers: others } : rest;
}

function ourEntry(doc: Table): unknown {
  const servers = doc.mcp_servers;
  if (servers === undefined) return undefined;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ConfigShapeError('mcp_servers is not a table');
  }
  return (servers as Table)[SERVER_NAME];
}

/** The edited text, once proved to hold `entry` (or none) and everything else as before. */
function proved(lib: FormatLib, before: Table, text: string, entry: Table | undefined): string {
  let after: Table;
  try {
    after = parse(lib, text);
  } catch {
    throw new ConfigShapeError(
      `could not edit [mcp_servers.${SERVER_NAME}] safely (the result would not parse)`,
    );
  }
  if (
    !isDeepStrictEqual(withoutOurs(after), withoutOurs(before)) ||
    !isDeepStrictEqual(ourEntry(after), entry)
  ) {
    throw new ConfigShapeError(
      `could not edit [mcp_servers.${SERVER_NAME}] safely (it may be written as an inline table, dotted keys or split sub-tables)`,
    );
  }
  return text;
}

export const codexToml: FileFormat = {
  add(text: string, entry: ServerEntry, lib: FormatLib) {
    const before = parse(lib, text);
    const existing = ourEntry(before) as Table | undefined;
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    if (existing === undefined) {
      const wanted: Table = { ...entry, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_S };
      const table = renderTable(wanted, eol);
      if (text === '') return proved(lib, before, table, wanted);
      if (text.endsWith('\n')) return proved(lib, before, `${text}${eol}${table}`, wanted);
      // A file without a final line break keeps that style, and `remove` can tell what to take back.
      return proved(lib, before, `${text}${eol}${eol}${table.slice(0, -eol.length)}`, wanted);
    }
    const oldEnv =
      existing.env !== null && typeof existing.env === 'object' ? { ...(existing.env as Table) } : {};
    for (const name of envToDrop(entry)) delete oldEnv[name];
    const wanted: Table = {
      ...existing,
      command: entry.command,
      args: entry.args,
      env: { ...oldEnv, ...entry.env },
      startup_timeout_sec: existing.startup_timeout_sec ?? CODEX_STARTUP_TIMEOUT_S,
    };
    if (isDeepStrictEqual(wanted, existing)) return text;
    const lines = text.split('\n');
    const range = findTable(lines);
    if (range === undefined)
      throw new ConfigShapeError(`[mcp_servers.${SERVER_NAME}] is not written as a table`);
    const block = renderTable(wanted, eol).split('\n').slice(0, -1);
    // The table ends the file, with no line break after it: neither has the new one (nor a \r).
    if (range.last === lines.length - 1) block.push(block.pop()!.replace(/\r$/, ''));
    const edited = [...lines.slice(0, range.first), ...block, ...lines.slice(range.last + 1)];
    return proved(lib, before, edited.join('\n'), wanted);
  },

  remove(text: string, lib: FormatLib) {
    const before = parse(lib, text);
    if (ourEntry(before) === undefined) return text;
    const lines = text.split('\n');
    const range = findTable(lines);
    if (range === undefined)
      throw new ConfigShapeError(`[mcp_servers.${SERVER_NAME}] is not written as a table`);
    let { first, last } = range;
    // The blank line `add` put before the table goes with it.
    const blank = (i: number): boolean => /^\s*$/.test(lines[i] ?? 'x');
    if (first > 0 && blank(first - 1)) first--;
    else if (first === 0 && last + 1 < lines.length - 1 && blank(last + 1)) last++;
    const edited = [...lines.slice(0, first), ...lines.slice(last + 1)];
    // The table ended the file with no line break after it: the break before it goes too, so the
    // line that is now last ends the file as it did before `add`.
    if (range.last === lines.length - 1 && first > 0 && edited.length === first) {
      edited.push(edited.pop()!.replace(/\r$/, ''));
    }
    return proved(lib, before, edited.join('\n'), undefined);
  },
};
