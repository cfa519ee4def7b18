/**
 * Edits of a JSON-with-comments file that touch only the bytes they must: a value replaced in
 * place, a member inserted on a line of its own after the last one, a member removed with exactly
 * the bytes its insertion added. Everything else (comments, other servers, unknown keys, the file's
 * indentation and line ends) stays byte for byte.
 *
 * jsonc-parser's `modify` is not used for inserts and removals: its formatter re-indents the line
 * of the neighbouring member and moves that member's trailing comment after the new one (tried on
 * jsonc-parser 3.3.1). Its parse tree gives the offsets; the splicing is done here.
 */

import type * as Formats from './formats.js';
import { ConfigParseError, ConfigShapeError, lineAndColumn } from './problems.js';

type Lib = Pick<typeof Formats, 'parseTree' | 'getNodeValue' | 'printParseErrorCode'>;
type JsonNode = Formats.Node;

export interface JsonStyle {
  /** One level of indentation, as the file uses it. */
  unit: string;
  eol: string;
}

/** The file's own indentation and line ends; two spaces and `\n` for a new file. */
export function detectStyle(text: string): JsonStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // One pass, one number kept: a heavy user's ~/.claude.json has hundreds of thousands of lines,
  // too many for a list of them to be spread into Math.min's arguments.
  let narrowest = 8;
  let seen = false;
  for (const match of text.matchAll(/\n([ \t]+)\S/g)) {
    const indent = match[1] ?? '';
    if (indent.startsWith('\t')) return { unit: '\t', eol };
    narrowest = Math.min(narrowest, indent.length);
    seen = true;
  }
  return { unit: ' '.repeat(seen ? narrowest : 2), eol };
}

/**
 * Deeper than any client's config. jsonc-parser recurses once per level, so a file nested 100,000
 * deep overflowed the stack; the depth is checked before it parses.
 */
export const MAX_DEPTH = 128;

/** Offset of the first `{` or `[` beyond MAX_DEPTH levels, outside strings and comments, or undefined. */
function tooDeepAt(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const br = text.indexOf('\n', i);
      i = br === -1 ? text.length : br;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (c === '{' || c === '[') {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return undefined;
}

/** The parse tree of `text`; a syntax error throws ConfigParseError with its line and column. */
export function parseJsonc(lib: Lib, text: string): JsonNode | undefined {
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    const { line, column } = lineAndColumn(text, deep);
    throw new ConfigParseError(line, column, `nested more than ${MAX_DEPTH} levels deep`);
  }
  const errors: Formats.ParseError[] = [];
  const root = lib.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  // An empty file (or one with only comments) is a config with nothing in it yet.
  if (root === undefined && errors.every((e) => lib.printParseErrorCode(e.error) === 'ValueExpected'))
    return undefined;
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new ConfigParseError(line, column, lib.printParseErrorCode(first.error));
  }
  if (root !== undefined && root.type !== 'object') {
    throw new ConfigShapeError(`the top level is ${article(root.type)}, not an object`);
  }
  return root;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * The member `path[depth]` of `object`. A key that appears twice is refused: clients read the last
 * one (JSON.parse does), while the parse tree would lead an edit to the first.
 */
function memberAt(
  text: string,
  object: JsonNode,
  path: readonly string[],
  depth: number,
): JsonNode | undefined {
  const key = path[depth];
  const found = (object.children ?? []).filter((p) => p.children?.[0]?.value === key);
  if (found.length > 1) {
    const lines = found.map((p) => lineAndColumn(text, p.offset).line);
    const times = found.length === 2 ? 'twice' : `${found.length} times`;
    throw new ConfigShapeError(
      `${pathText(path.slice(0, depth + 1))} appears ${times}, on lines ${lines.slice(0, -1).join(', ')} and ${lines.at(-1)} (a client reads only the last; keep one)`,
    );
  }
  return found[0];
}

/** The value node at `path`, or undefined; a duplicate key on the way is refused (memberAt). */
function nodeAt(text: string, root: JsonNode | undefined, path: readonly string[]): JsonNode | undefined {
  let node = root;
  for (let depth = 0; node !== undefined && depth < path.length; depth++) {
    node = node.type === 'object' ? memberAt(text, node, path, depth)?.children?.[1] : undefined;
  }
  return node;
}

/** The value at `path`, or undefined. */
export function valueAt(lib: Lib, text: string, path: readonly string[]): unknown {
  const node = nodeAt(text, parseJsonc(lib, text), path);
  return node ? lib.getNodeValue(node) : undefined;
}

/** JSON text of `value` for a spot indented by `base`: arrays of scalars on one line, objects expanded. */
export function serialize(value: unknown, base: string, style: JsonStyle): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    }
    if (value.length === 0) return '[]';
    const inner = base + style.unit;
    const items = value.map((v) => `${inner}${serialize(v, inner, style)}`);
    return `[${style.eol}${items.join(`,${style.eol}`)}${style.eol}${base}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = base + style.unit;
    const members = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${serialize(v, inner, style)}`);
    return `{${style.eol}${members.join(`,${style.eol}`)}${style.eol}${base}}`;
  }
  return JSON.stringify(value);
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** The whitespace at the start of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/**
 * From `offset`, past blanks and comments on the same line: where that line's content ends (the
 * offset of its line break, or of the text's end), or undefined when something else follows on it.
 */
function endOfLineAfter(text: string, offset: number): number | undefined {
  let i = offset;
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text.startsWith('//', i)) {
      const br = text.indexOf('\n', i);
      // A CRLF line ends at its \r: the comment must not take it, or an insertion splits the pair.
      i = br === -1 ? text.length : text[br - 1] === '\r' ? br - 1 : br;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1 || text.slice(i, close).includes('\n')) return undefined;
      i = close + 2;
      continue;
    }
    if (i >= text.length) return i;
    if (text[i] === '\n') return i;
    if (text[i] === '\r' && text[i + 1] === '\n') return i;
    return undefined;
  }
}

/** Offset of the comma that follows `offset` past blanks, line breaks and comments, or undefined. */
function commaAfter(text: string, offset: number): number | undefined {
  let i = offset;
  for (;;) {
    while (/\s/.test(text[i] ?? '')) i++;
    if (text.startsWith('//', i)) {
      const br = text.indexOf('\n', i);
      i = br === -1 ? text.length : br;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) return undefined;
      i = close + 2;
    } else {
      return text[i] === ',' ? i : undefined;
    }
  }
}

/**
 * Adds `member` (a property's `"key": value` or an array element, already serialized for
 * `indent`) as the last child of `container`, on its own line.
 */
function appendChild(
  text: string,
  container: JsonNode,
  member: (indent: string) => string,
  style: JsonStyle,
): string {
  const children = container.children ?? [];
  const last = children[children.length - 1];
  if (last === undefined) {
    const open = container.offset;
    const close = container.offset + container.length - 1;
    const outer = lineIndent(text, open);
    const inner = outer + style.unit;
    const interior = text.slice(open + 1, close);
    if (interior.trim() === '') {
      return splice(text, open + 1, close, `${style.eol}${inner}${member(inner)}${style.eol}${outer}`);
    }
    // Only comments inside: they stay, after the new member.
    return splice(text, open + 1, open + 1, `${style.eol}${inner}${member(inner)}`);
  }
  const inner = lineIndent(text, last.offset);
  const lastEnd = last.offset + last.length;
  const trailingComma = commaAfter(text, lastEnd);
  const after = trailingComma === undefined ? lastEnd : trailingComma + 1;
  // After the last member's own line (and its trailing comment), unless more follows on that line.
  const at = endOfLineAfter(text, after) ?? after;
  // A file written with trailing commas gets one after the new member too (and removal takes it back).
  const inserted = splice(
    text,
    at,
    at,
    `${style.eol}${inner}${member(inner)}${trailingComma === undefined ? '' : ','}`,
  );
  return trailingComma === undefined ? splice(inserted, lastEnd, lastEnd, ',') : inserted;
}

/**
 * Removes child `index` of `container`, with exactly what `appendChild` added for it: its line,
 * and the comma it gave the member before it. An only child leaves `{}` or `[]`.
 */
function removeChild(text: string, container: JsonNode, index: number): string {
  const children = container.children ?? [];
  const node = children[index];
  if (node === undefined) return text;
  if (children.length === 1) {
    return splice(
      text,
      container.offset,
      container.offset + container.length,
      container.type === 'array' ? '[]' : '{}',
    );
  }
  const start = node.offset;
  const end = node.offset + node.length;
  // The line break before the member, when nothing but indentation stands between them.
  const lineStart = text.lastIndexOf('\n', start - 1);
  const ownLine = lineStart !== -1 && /^[ \t]*$/.test(text.slice(lineStart + 1, start));
  const from = ownLine ? (text[lineStart - 1] === '\r' ? lineStart - 1 : lineStart) : start;
  const comma = commaAfter(text, end);
  if (comma !== undefined) {
    const to = ownLine ? (endOfLineAfter(text, comma + 1) ?? comma + 1) : comma + 1;
    return splice(text, from, to, '');
  }
  // The last member: the comma before it goes too.
  const previous = children[index - 1];
  if (previous === undefined) return text;
  const to = ownLine ? (endOfLineAfter(text, end) ?? end) : end;
  const withoutMember = splice(text, from, to, '');
  const previousComma = commaAfter(withoutMember, previous.offset + previous.length);
  return previousComma === undefined
    ? withoutMember
    : splice(withoutMember, previousComma, previousComma + 1, '');
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `{a: {b: value}}` for path `[a, b]`. */
function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function pathText(path: readonly string[]): string {
  return path.map((p) => JSON.stringify(p)).join(' → ');
}

/**
 * Sets the value at `path`, creating the objects on the way. An equal value changes nothing; a
 * different one is replaced in place; a missing member is appended to its object.
 */
export function setValue(
  lib: Lib,
  text: string,
  path: readonly string[],
  value: unknown,
  style: JsonStyle,
): string {
  const root = parseJsonc(lib, text);
  if (root === undefined) {
    // Empty, or comments only: they stay, before the new object.
    const body = `${serialize(nest(path, value), '', style)}${style.eol}`;
    if (text.trim() === '') return body;
    return `${text}${text.endsWith('\n') ? '' : style.eol}${body}`;
  }
  let node = root;
  for (let depth = 0; depth < path.length; depth++) {
    const key = path[depth]!;
    const property = memberAt(text, node, path, depth);
    const valueNode = property?.children?.[1];
    if (valueNode === undefined) {
      const rest = nest(path.slice(depth + 1), value);
      return appendChild(
        text,
        node,
        (indent) => `${JSON.stringify(key)}: ${serialize(rest, indent, style)}`,
        style,
      );
    }
    if (depth === path.length - 1) {
      if (isDeepEqual(lib.getNodeValue(valueNode), value)) return text;
      const indent = lineIndent(text, property!.offset);
      return splice(
        text,
        valueNode.offset,
        valueNode.offset + valueNode.length,
        serialize(value, indent, style),
      );
    }
    if (valueNode.type !== 'object') {
      throw new ConfigShapeError(
        `${pathText(path.slice(0, depth + 1))} is ${article(valueNode.type)}, not an object`,
      );
    }
    node = valueNode;
  }
  return text;
}

/**
 * Removes the member at `path`. The object that held it stays, even when left empty: it may have
 * been there before the member was added (Cursor creates `{"mcpServers": {}}` itself).
 */
export function removeValue(lib: Lib, text: string, path: readonly string[]): string {
  const root = parseJsonc(lib, text);
  if (root === undefined) return text;
  const property = nodeAt(text, root, path)?.parent;
  const container = property?.parent;
  if (property === undefined || container === undefined) return text;
  return removeChild(text, container, container.children!.indexOf(property));
}

/** Appends `element` to the array at `path`, creating the array when missing. */
export function appendElement(
  lib: Lib,
  text: string,
  path: readonly string[],
  element: unknown,
  style: JsonStyle,
): string {
  const array = nodeAt(text, parseJsonc(lib, text), path);
  if (array === undefined) return setValue(lib, text, path, [element], style);
  if (array.type !== 'array')
    throw new ConfigShapeError(`${pathText(path)} is ${article(array.type)}, not an array`);
  return appendChild(text, array, (indent) => serialize(element, indent, style), style);
}

/** Removes the elements of the array at `path` that `match`; the array stays, even when left empty. */
export function removeElements(
  lib: Lib,
  text: string,
  path: readonly string[],
  match: (value: unknown) => boolean,
): string {
  for (;;) {
    const array = nodeAt(text, parseJsonc(lib, text), path);
    if (array?.type !== 'array') return text;
    const elements = array.children ?? [];
    const index = elements.findIndex((e) => match(lib.getNodeValue(e)));
    if (index === -1) return text;
    text = removeChild(text, array, index);
  }
}
