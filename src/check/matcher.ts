/**
 * Finds the models a text names: catalog ids (`openai/gpt-4o`), Hugging Face ids
 * (`meta-llama/Llama-3.1-8B-Instruct`) and bare names as code writes them (`gpt-4o-mini`: a catalog
 * id's part after the vendor, or a model's `name`). Pure: text in, references out.
 *
 * One pass per text, whatever the catalog's size: every name is a pattern of one Aho-Corasick
 * automaton, compiled to a table of transitions, so the cost grows with the text's length, not
 * length × models. Matching is ASCII case-insensitive (catalog ids are ASCII; folding only A-Z keeps
 * every offset the text's own), on whole tokens, and the longest match wins (docs/check.md).
 */

/** What the matcher needs of a catalog model. */
export interface CatalogNames {
  id: string;
  name?: string | null | undefined;
  huggingfaceId?: string | null | undefined;
}

/** How a reference names its model; also the order of preference when two models share a name. */
export type ReferenceKind = 'id' | 'huggingface' | 'name';

export interface Reference {
  /** Offsets in the text, in UTF-16 code units: `text.slice(start, end)` is what was found. */
  start: number;
  end: number;
  modelId: string;
  kind: ReferenceKind;
}

/** A `vendor/name` token the catalog does not list, close to ids it does. */
export interface NearMiss {
  start: number;
  end: number;
  /** Up to three catalog ids, closest first. */
  suggestions: string[];
}

export interface ModelMatcher {
  /** Every reference in `text`, in order, none overlapping. */
  references(text: string): Reference[];
  /** The `vendor/name` tokens of `text` that are near misses, not overlapping `references`. */
  nearMisses(text: string, references: readonly Reference[]): NearMiss[];
}

const KIND_RANK: Record<ReferenceKind, number> = { id: 0, huggingface: 1, name: 2 };
/** At most this many suggestions for a near miss. */
const MAX_SUGGESTIONS = 3;
/** Names that differ by at most this many edits are close. */
const MAX_EDITS = 2;

const fold = (code: number) => (code >= 65 && code <= 90 ? code | 0x20 : code);

/** ASCII letters, digits, `-` and `_`: a match next to one of these is part of a longer token. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 45 ||
    code === 95
  );
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether `text.slice(start, end)` stands as a whole token: the characters around it are neither
 * token characters nor a `.` that joins a digit to it (`gpt-4` in `gpt-4.1`).
 */
export function isWholeToken(text: string, start: number, end: number): boolean {
  if (start > 0) {
    const before = text.charCodeAt(start - 1);
    if (isTokenChar(before)) return false;
    if (before === 46 && isDigit(text.charCodeAt(start))) return false;
  }
  if (end < text.length) {
    const after = text.charCodeAt(end);
    if (isTokenChar(after)) return false;
    if (after === 46 && end + 1 < text.length && isDigit(text.charCodeAt(end + 1))) return false;
  }
  return true;
}

interface Pattern {
  length: number;
  modelId: string;
  kind: ReferenceKind;
}

/** The names each model is known by, folded, with the best claim on each name kept. */
function collectPatterns(models: readonly CatalogNames[]): Map<string, Pattern> {
  const patterns = new Map<string, Pattern>();
  const add = (name: string | null | undefined, modelId: string, kind: ReferenceKind) => {
    const key = name?.trim().toLowerCase();
    if (!key) return;
    const held = patterns.get(key);
    // Two models sharing a name: an id beats a Hugging Face id beats a bare name; else the first.
    if (held && KIND_RANK[held.kind] <= KIND_RANK[kind]) return;
    patterns.set(key, { length: key.length, modelId, kind });
  };
  for (const model of models) {
    add(model.id, model.id, 'id');
    add(model.huggingfaceId, model.id, 'huggingface');
    const slash = model.id.indexOf('/');
    if (slash > 0) add(model.id.slice(slash + 1), model.id, 'name');
    add(model.name, model.id, 'name');
  }
  return patterns;
}

/**
 * The automaton as flat tables: `next[state * width + symbol]` is the state after reading a symbol
 * (failure transitions already folded in), `output[state]` the pattern ending there (-1 for none),
 * `chain[state]` the next state down the suffix chain that ends a pattern (-1 for none).
 */
interface Automaton {
  symbols: Uint16Array;
  width: number;
  next: Int32Array;
  output: Int32Array;
  chain: Int32Array;
  patterns: Pattern[];
}

function compile(patterns: Map<string, Pattern>): Automaton {
  // Symbols: the distinct characters of the patterns (0: any other).
  const symbols = new Uint16Array(65536);
  let width = 1;
  for (const key of patterns.keys()) {
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      if (symbols[code] === 0) symbols[code] = width++;
    }
  }
  // The trie, as child maps, then breadth first into the tables.
  const children: Map<number, number>[] = [new Map()];
  const ends: number[] = [-1];
  const list: Pattern[] = [];
  for (const [key, pattern] of patterns) {
    let state = 0;
    for (let i = 0; i < key.length; i++) {
      const symbol = symbols[key.charCodeAt(i)]!;
      let child = children[state]!.get(symbol);
      if (child === undefined) {
        child = children.length;
        children.push(new Map());
        ends.push(-1);
        children[state]!.set(symbol, child);
      }
      state = child;
    }
    ends[state] = list.length;
    list.push(pattern);
  }
  const states = children.length;
  const next = new Int32Array(states * width);
  const fail = new Int32Array(states);
  const output = Int32Array.from(ends);
  const chain = new Int32Array(states).fill(-1);
  const queue: number[] = [];
  for (const [symbol, child] of children[0]!) {
    next[symbol] = child;
    queue.push(child);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    const failed = fail[state]!;
    chain[state] = output[failed]! >= 0 ? failed : chain[failed]!;
    const row = state * width;
    const failedRow = failed * width;
    for (let symbol = 0; symbol < width; symbol++) next[row + symbol] = next[failedRow + symbol]!;
    for (const [symbol, child] of children[state]!) {
      fail[child] = next[failedRow + symbol]!;
      next[row + symbol] = child;
      queue.push(child);
    }
  }
  return { symbols, width, next, output, chain, patterns: list };
}

/** Leftmost first, then longest; a candidate overlapping one already kept is dropped. */
function leftmostLongest(candidates: Reference[]): Reference[] {
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Reference[] = [];
  let reached = 0;
  for (const candidate of candidates) {
    if (candidate.start < reached) continue;
    kept.push(candidate);
    reached = candidate.end;
  }
  return kept;
}

function findReferences(automaton: Automaton, text: string): Reference[] {
  const { symbols, width, next, output, chain, patterns } = automaton;
  const candidates: Reference[] = [];
  let state = 0;
  for (let i = 0; i < text.length; i++) {
    state = next[state * width + symbols[fold(text.charCodeAt(i))]!]!;
    for (let at = output[state]! >= 0 ? state : chain[state]!; at >= 0; at = chain[at]!) {
      const pattern = patterns[output[at]!]!;
      const start = i + 1 - pattern.length;
      if (isWholeToken(text, start, i + 1)) {
        candidates.push({ start, end: i + 1, modelId: pattern.modelId, kind: pattern.kind });
      }
    }
  }
  return leftmostLongest(candidates);
}

/** Edit distance of `a` and `b`, or `limit + 1` once it is sure to exceed `limit`. */
export function boundedEditDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** A name's `-`-separated parts, a `2024-05-13` date counting as one. */
const parts = (name: string) => name.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, '$1$2$3').split('-');

/** Whether one name is the other with one `-`-separated part added (`-lite`, a date, `-preview`). */
export function differsByOnePart(a: string, b: string): boolean {
  const [shorter, longer] = a.length <= b.length ? [parts(a), parts(b)] : [parts(b), parts(a)];
  if (longer.length !== shorter.length + 1) return false;
  for (let skip = 0; skip < longer.length; skip++) {
    if (longer.every((part, i) => i === skip || part === shorter[i < skip ? i : i - 1])) return true;
  }
  return false;
}

/**
 * How close a listed name is to an unlisted one, lower being closer, or undefined when it is not
 * close: at most two edits, or one `-`-separated part more or less (counted as one edit).
 */
export function closeness(unlisted: string, listed: string): number | undefined {
  const edits = boundedEditDistance(unlisted, listed, MAX_EDITS);
  if (edits <= MAX_EDITS) return edits;
  return differsByOnePart(unlisted, listed) ? 1 : undefined;
}

/**
 * Runs of the characters ids are made of, slashes included. One character class and nothing after
 * it: each match is a maximal run, found without backtracking, so the scan stays linear whatever the
 * text (a pattern like `[\w.-]*\/` would retry every start of a long run without a slash).
 */
const ID_RUN = /[A-Za-z0-9._:/-]+/g;
/** A segment a `vendor/name` token can be made of: it starts with a letter or digit. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/**
 * The `vendor/name` shaped tokens of a run: every two neighbouring `/`-separated segments, so that
 * the id inside a path or URL is seen too. Offsets are the text's.
 */
function* idShaped(run: string, at: number): Generator<{ start: number; token: string }> {
  if (!run.includes('/')) return;
  const segments = run.split('/');
  let offset = at;
  for (let i = 0; i + 1 < segments.length; i++) {
    const [vendor, name] = [segments[i]!, segments[i + 1]!];
    if (SEGMENT.test(vendor) && SEGMENT.test(name)) yield { start: offset, token: `${vendor}/${name}` };
    offset += vendor.length + 1;
  }
}

export function compileMatcher(models: readonly CatalogNames[]): ModelMatcher {
  const automaton = compile(collectPatterns(models));
  const listed = new Set<string>();
  /** Each catalog namespace's models: their ids, and the part after the vendor, folded. */
  const byVendor = new Map<string, { id: string; name: string }[]>();
  for (const model of models) {
    const id = model.id.toLowerCase();
    listed.add(id);
    if (model.huggingfaceId) listed.add(model.huggingfaceId.toLowerCase());
    const slash = id.indexOf('/');
    if (slash <= 0) continue;
    const vendor = id.slice(0, slash);
    const entries = byVendor.get(vendor) ?? [];
    entries.push({ id: model.id, name: id.slice(slash + 1) });
    byVendor.set(vendor, entries);
  }
  // A token's suggestions depend on the token alone: worked out once however often it recurs.
  const suggestionsFor = new Map<string, string[]>();
  const suggest = (token: string): string[] => {
    const known = suggestionsFor.get(token);
    if (known) return known;
    const slash = token.indexOf('/');
    const name = token.slice(slash + 1);
    const scored: [number, string][] = [];
    for (const model of byVendor.get(token.slice(0, slash)) ?? []) {
      const score = closeness(name, model.name);
      if (score !== undefined) scored.push([score, model.id]);
    }
    scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
    const suggestions = scored.slice(0, MAX_SUGGESTIONS).map(([, id]) => id);
    suggestionsFor.set(token, suggestions);
    return suggestions;
  };

  return {
    references: (text) => findReferences(automaton, text),
    nearMisses(text, references) {
      const misses: NearMiss[] = [];
      let next = 0;
      for (const run of text.matchAll(ID_RUN)) {
        for (const { start, token: raw } of idShaped(run[0], run.index)) {
          // A trailing `.` or `:` ends a sentence or a label, not the token.
          const token = raw.replace(/[.:]+$/, '');
          const end = start + token.length;
          if (!isWholeToken(text, start, end)) continue;
          const folded = token.toLowerCase();
          if (listed.has(folded) || !byVendor.has(folded.slice(0, folded.indexOf('/')))) continue;
          while (next < references.length && references[next]!.end <= start) next++;
          if (next < references.length && references[next]!.start < end) continue;
          const suggestions = suggest(folded);
          if (suggestions.length) misses.push({ start, end, suggestions });
        }
      }
      return misses;
    },
  };
}

/**
 * 1-based line and column (UTF-16 code units) of each offset; `offsets` ascending. One pass over the
 * text: the next line break is looked for once, not once per offset (which, on a 50 MB line without
 * one, cost 50 MB per reference).
 */
export function locate(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const places: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let newline = text.indexOf('\n');
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      lineStart = newline + 1;
      newline = text.indexOf('\n', lineStart);
    }
    places.push({ line, column: offset - lineStart + 1 });
  }
  return places;
}
