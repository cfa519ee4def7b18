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
import { SERVER_NAME } from '../entry.js';
import { ConfigParseError, ConfigShapeError } from '../problems.js';

type Table = Record<string, unknown>;

/** Codex's own start-up limit is 10 s; the first `npx` download can take longer. */
export const CODEX_STARTUP_TIMEOUT_S = 30;

function parse(lib: FormatLib, text: string): Table {
  try {
    return lib.parseToml(text) as Table;
  } catch (error) {
    if (error instanceof lib.TomlError) {
      const detail = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      throw new ConfigParseError(error.line, error.column, detail);
    }
    throw error;
  }
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

/** Line indexes of table headers, skipping lines inside multi-line strings. */
function headerLines(lines: readonly string[]): Map<number, string[]> {
  const headers = new Map<number, string[]>();
  let open: '"""' | "'''" | undefined;
  lines.forEach((line, index) => {
    if (open === undefined) {
      const path = headerPath(line);
      if (path) headers.set(index, path);
    }
    for (const quote of ['"""', "'''"] as const) {
      if (open !== undefined && open !== quote) continue;
      const count = line.split(quote).length - 1;
      if (count % 2 === 1) open = open === undefined ? quote : undefined;
    }
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
      const separator = text === '' ? '' : text.endsWith('\n') ? eol : eol + eol;
      return proved(lib, before, `${text}${separator}${renderTable(wanted, eol)}`, wanted);
    }
    const oldEnv = existing.env !== null && typeof existing.env === 'object' ? (existing.env as Table) : {};
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
    return proved(lib, before, edited.join('\n'), undefined);
  },
};
