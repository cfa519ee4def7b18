/**
 * Finds the models a text names: catalog ids (`openai/gpt-4o`), Hugging Face ids
 * (`meta-llama/Llama-3.1-8B-Instruct`) and bare names as code writes them (`gpt-4o-mini`: a catalog
 * id's part after the vendor, or a model's `name`). Pure: text in, references out.
 *
 * One pass per text, whatever the catalog's size: every name is a pattern of one Aho-Corasick
 * automaton, compiled to a table of transitions, so the cost grows with the text's length, not
 * length × models. Matching is ASCII case-insensitive (catalog ids are ASCII; folding only A-Z keeps
 * every offset the text's own), on whole tokens, and the longest match wins (docs/check.md).
 *
 * The automaton reads UTF-8 bytes: a file is matched as read, with no decoded copy of it (a 50 MB
 * file held 50 MB as bytes and 50 MB more as a string). Folding only A-Z, and judging token
 * boundaries only by ASCII characters, find in the bytes exactly what they find in the decoded text:
 * no byte of a multi-byte character is ASCII. `references` and `nearMisses` take a string and give
 * offsets in UTF-16 code units; `spans` takes bytes and gives byte offsets.
 */

import { boundedEditDistance } from '../text/edit-distance.js';

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

/** A reference or a near miss in UTF-8 bytes, as `spans` lists them. */
export interface Span {
  /** Offsets in bytes. */
  start: number;
  end: number;
  /** The catalog model named; null for a near miss. */
  modelId: string | null;
  /** For a near miss: up to three catalog ids, closest first. */
  suggestions: string[];
}

export interface SpanOptions {
  /**
   * At most this many spans are listed; past them, only a model and text not listed yet is, and
   * each repeat is counted instead (scan-file.ts says why).
   */
  limit: number;
  /**
   * At most this many spans are listed at all, new ones included; past them, each is tallied in
   * `dropped` instead, so that a file of distinct near misses cannot list without end.
   * @default no bound
   */
  hardLimit?: number;
  /**
   * Whether a span starting at this byte is left out altogether, neither listed nor counted (a
   * silenced line). Asked in ascending order of `start`.
   */
  silenced?: (start: number) => boolean;
}

/** Spans past `hardLimit`: how many, how many near misses, and the catalog models they name. */
export interface DroppedSpans {
  count: number;
  nearMisses: number;
  /** Catalog id -> spans dropped. */
  models: Map<string, number>;
}

export interface ModelMatcher {
  /** Every reference in `text`, in order, none overlapping. */
  references(text: string): Reference[];
  /** The `vendor/name` tokens of `text` that are near misses, not overlapping `references`. */
  nearMisses(text: string, references: readonly Reference[]): NearMiss[];
  /**
   * The references and near misses of a UTF-8 text, in order, as `references` and `nearMisses`
   * would find them in its decoding, listed up to `options.limit`: past it, repeats are counted in
   * `repeats` and never made into spans, so a line naming one model 700,000 times costs no memory
   * for them.
   */
  spans(bytes: Uint8Array, options: SpanOptions): { spans: Span[]; repeats: number; dropped: DroppedSpans };
  /**
   * What another thread needs to rebuild this matcher without compiling it again
   * (`matcherFrom`): plain data, its tables in shared memory, which a worker receives without a copy.
   */
  readonly compiled: CompiledMatcher;
}

/** Plain data: what `matcherFrom` rebuilds a matcher from, in this thread or another. */
export interface CompiledMatcher {
  /** The catalog's names only (the near misses are judged against them). */
  models: CatalogNames[];
  automaton: Automaton;
}

const KIND_RANK: Record<ReferenceKind, number> = { id: 0, huggingface: 1, name: 2 };
/** At most this many suggestions for a near miss. */
const MAX_SUGGESTIONS = 3;
/** Names that differ by at most this many edits are close. */
const MAX_EDITS = 2;

const encoder = new TextEncoder();

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

/** `isTokenChar` by byte, for the automaton's loop. */
const TOKEN_BYTE = Uint8Array.from({ length: 256 }, (_, byte) => (isTokenChar(byte) ? 1 : 0));

/**
 * Whether the units `start` to `end` stand as a whole token: the characters around them are neither
 * token characters nor a `.` that joins a digit to them (`gpt-4` in `gpt-4.1`). `unit(i)` is the
 * i-th code unit, of a string or of UTF-8 bytes alike: only ASCII decides.
 */
function wholeToken(unit: (i: number) => number, length: number, start: number, end: number): boolean {
  if (start > 0) {
    const before = unit(start - 1);
    if (isTokenChar(before)) return false;
    if (before === 46 && isDigit(unit(start))) return false;
  }
  if (end < length) {
    const after = unit(end);
    if (isTokenChar(after)) return false;
    if (after === 46 && end + 1 < length && isDigit(unit(end + 1))) return false;
  }
  return true;
}

/** Whether `text.slice(start, end)` stands as a whole token (see `wholeToken`). */
export function isWholeToken(text: string, start: number, end: number): boolean {
  return wholeToken((i) => text.charCodeAt(i), text.length, start, end);
}

interface Pattern {
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
    patterns.set(key, { modelId, kind });
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
 * The automaton over bytes, as flat tables: `next[row + symbols[byte]]` is the move on reading a byte
 * in the state whose row starts at `row` (failure transitions folded in), `first[state]` the first
 * state down its suffix chain (itself included) that ends a pattern, `chain[state]` the next one
 * below it (-1 for none), `output[state]` the pattern ending there. State 1 is the root; there is no
 * state 0. The tables live in shared memory (where there is any), so that worker threads use them
 * without a copy each.
 *
 * The moves are worked out as texts need them (`moveOf`), from the trie and its failure links, and
 * kept: a text visits few of the table's rows (for 5,000 models, 92,709 states of 35 symbols: 13 MB),
 * and filling them all cost most of the build, half of it the memory's first touch. Two threads
 * may work out the same move at once: both write the same value, and a move not yet written reads
 * as 0, which sends either thread to work it out.
 */
interface Automaton {
  /** Each byte's symbol, A-Z folded to a-z; 0 for a byte no pattern holds. */
  symbols: Uint16Array;
  width: number;
  /**
   * A move: the next state's row (`state * width`, > 0) if no pattern ends in it, `~state` (< 0) if
   * one does, 0 if not worked out yet. Most bytes end no pattern and find their move worked out: the
   * loop over them then needs one look-up and one sign test (eachReference says what that saved).
   */
  next: Int32Array;
  /** The trie: each state's first child, the next child of its parent, and the symbol into it. */
  child: Int32Array;
  sibling: Int32Array;
  label: Int32Array;
  /** The state each state fails to: its longest proper suffix that is a state. */
  fail: Int32Array;
  first: Int32Array;
  chain: Int32Array;
  output: Int32Array;
  /** Each pattern's length in bytes. */
  lengths: Int32Array;
  /** The longest pattern, in bytes. */
  longest: number;
  patterns: Pattern[];
}

const ROOT = 1;

function sharedInt32(length: number): Int32Array {
  const Memory = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  return new Int32Array(new Memory(length * Int32Array.BYTES_PER_ELEMENT));
}

/** The trie child of `state` by `symbol`, or 0. */
function trieChild(automaton: Automaton, state: number, symbol: number): number {
  const { child, sibling } = automaton;
  let at = child[state]!;
  while (at !== 0 && automaton.label[at] !== symbol) at = sibling[at]!;
  return at;
}

/** The move into `state` (see Automaton). */
const moveInto = (automaton: Automaton, state: number) =>
  automaton.first[state]! >= 0 ? ~state : state * automaton.width;

/**
 * The move from `state` on `symbol`, worked out and kept if it was not: the trie child, else the
 * failure state's move, kept for every state passed on the way down.
 */
function moveOf(automaton: Automaton, state: number, symbol: number): number {
  const { next, fail, width } = automaton;
  let at = state;
  let move = next[at * width + symbol]!;
  // The root's moves are all worked out (compile): the way down ends there at the latest.
  while (move === 0) {
    const found = trieChild(automaton, at, symbol);
    move = found !== 0 ? moveInto(automaton, found) : next[fail[at]! * width + symbol]!;
    if (move === 0) at = fail[at]!;
  }
  for (let on = state; on !== at; on = fail[on]!) next[on * width + symbol] = move;
  next[at * width + symbol] = move;
  return move;
}

/**
 * The trie and its failure links, from the names encoded into one buffer; the moves are left to
 * `moveOf` but the root's, which nearly every byte of a text takes.
 *
 * The names are sorted, so that each shares with the one before it the prefix it shares with any
 * name before it: counting the states is one pass, and inserting a name starts where that prefix
 * ends. Filling the whole table at once cost a large catalog's compile two-fifths more time and
 * half again the memory.
 */
function compile(patterns: Map<string, Pattern>): Automaton {
  // Sorted by UTF-16 code units, which is the UTF-8 bytes' order but for characters past U+FFFF: a
  // name with one may then share less with the one before than with another; it is counted more
  // states than it makes, never fewer, and inserted like any other.
  const names = [...patterns.keys()].sort();
  const count = names.length;
  // Every name's UTF-8 bytes, one after another: name i is bytes[starts[i]] to bytes[starts[i + 1]].
  const bytes = new Uint8Array(names.reduce((sum, name) => sum + name.length * 3, 0));
  const starts = new Int32Array(count + 1);
  names.forEach((name, i) => {
    starts[i + 1] = starts[i]! + encoder.encodeInto(name, bytes.subarray(starts[i])).written;
  });
  // Symbols: the distinct bytes of the patterns (0: any other).
  const symbols = new Uint16Array(256);
  let width = 1;
  for (let at = 0; at < starts[count]!; at++) {
    if (symbols[bytes[at]!] === 0) symbols[bytes[at]!] = width++;
  }
  for (let upper = 65; upper <= 90; upper++) symbols[upper] = symbols[upper | 0x20]!;
  // How many bytes each name shares with the one before.
  const shared = new Int32Array(count);
  let states = ROOT + 1;
  let longest = 0;
  for (let i = 0; i < count; i++) {
    const length = starts[i + 1]! - starts[i]!;
    let n = 0;
    if (i > 0) {
      const [before, end] = [starts[i - 1]!, Math.min(length, starts[i]! - starts[i - 1]!)];
      while (n < end && bytes[before + n] === bytes[starts[i]! + n]) n++;
    }
    shared[i] = n;
    states += length - n;
    longest = Math.max(longest, length);
  }
  const automaton: Automaton = {
    symbols,
    width,
    next: sharedInt32(states * width),
    child: sharedInt32(states),
    sibling: sharedInt32(states),
    label: sharedInt32(states),
    fail: sharedInt32(states),
    first: sharedInt32(states).fill(-1),
    chain: sharedInt32(states).fill(-1),
    output: sharedInt32(states).fill(-1),
    lengths: sharedInt32(count),
    longest,
    patterns: names.map((name) => patterns.get(name)!),
  };
  const { child, sibling, label, fail, first, chain, output, lengths } = automaton;
  // The states along the name before, by depth.
  const path = new Int32Array(longest + 1).fill(ROOT);
  let made = ROOT + 1;
  for (let i = 0; i < count; i++) {
    let state = path[shared[i]!]!;
    for (let at = starts[i]! + shared[i]!, depth = shared[i]! + 1; at < starts[i + 1]!; at++, depth++) {
      const symbol = symbols[bytes[at]!]!;
      let next = trieChild(automaton, state, symbol);
      if (next === 0) {
        next = made++;
        label[next] = symbol;
        sibling[next] = child[state]!;
        child[state] = next;
      }
      state = next;
      path[depth] = state;
    }
    output[state] = i;
    lengths[i] = starts[i + 1]! - starts[i]!;
  }
  // The root's moves, which fail to the root.
  const rootMoves = automaton.next.subarray(ROOT * width, (ROOT + 1) * width).fill(ROOT * width);
  // Breadth first: a state's failure state is no deeper than its parent, so it is queued before it,
  // with its `first`.
  const queue = new Int32Array(states);
  let tail = 0;
  for (let at = child[ROOT]!; at !== 0; at = sibling[at]!) {
    fail[at] = ROOT;
    if (output[at]! >= 0) first[at] = at;
    queue[tail++] = at;
  }
  for (let at = child[ROOT]!; at !== 0; at = sibling[at]!) rootMoves[label[at]!] = moveInto(automaton, at);
  for (let head = 0; head < tail; head++) {
    const state = queue[head]!;
    for (let at = child[state]!; at !== 0; at = sibling[at]!) {
      const symbol = label[at]!;
      let failed = fail[state]!;
      let into = trieChild(automaton, failed, symbol);
      while (into === 0 && failed !== ROOT) {
        failed = fail[failed]!;
        into = trieChild(automaton, failed, symbol);
      }
      fail[at] = into === 0 ? ROOT : into;
      chain[at] = first[fail[at]!]!;
      first[at] = output[at]! >= 0 ? at : chain[at]!;
      queue[tail++] = at;
    }
  }
  return automaton;
}

/**
 * Every reference in `bytes`, in order, none overlapping, handed to `found` as it is decided:
 * leftmost first, then longest. A match is decided once no match still to come could start at or
 * before it (all are at most `longest` long), so only the latest `longest` bytes' candidates are
 * held, the longest per start, and never a list of every candidate (700,000 of them on one 50 MB
 * minified line: 75 MB).
 */
function eachReference(
  automaton: Automaton,
  bytes: Uint8Array,
  found: (start: number, end: number, pattern: number) => void,
): void {
  const { symbols, width, next, first, chain, output, lengths, longest } = automaton;
  // Candidates by start, in a ring of a power of two at least `longest` long: the end of the longest
  // match at each start (0: none) and its pattern.
  let size = 1;
  while (size < longest) size *= 2;
  const mask = size - 1;
  const ends = new Int32Array(size);
  const picks = new Int32Array(size);
  let pending = 0;
  /** The next start to decide: every earlier one is. */
  let cursor = 0;
  /**
   * When to decide next: once `i` reaches the earliest pending start + longest - 1, not at every
   * byte while one is pending: on a minified line, where a match every few dozen bytes keeps one
   * pending nearly all the time, that cost a fifth more.
   */
  let due = Number.MAX_SAFE_INTEGER;
  /** Where the last reference kept ends: a candidate starting before it overlaps it. */
  let reached = 0;
  const length = bytes.length;
  let row = ROOT * width;
  // Past the end of the text, only to decide what is pending (at most `longest` more turns).
  for (let i = 0; i < length || pending !== 0; i++) {
    let at = -1;
    if (i < length) {
      // Up to the next byte that ends a pattern or whose move is not worked out yet (0), or where a
      // decision is due, a byte only moves: this loop is most of the time spent on any text. One
      // loop for every byte, which multiplied by `width` and looked up `first`, took twice as long.
      const stop = Math.min(due, length);
      for (; i < stop; i++) {
        const move = next[row + symbols[bytes[i]!]!]!;
        if (move <= 0) break;
        row = move;
      }
      if (i < length) {
        const symbol = symbols[bytes[i]!]!;
        let move = next[row + symbol]!;
        if (move === 0) move = moveOf(automaton, row / width, symbol);
        row = move < 0 ? ~move * width : move;
        if (move < 0) at = first[~move]!;
      }
    }
    if (at >= 0) {
      const end = i + 1;
      // wholeToken, inlined: what follows is the same for every match ending here.
      const after = end < length ? bytes[end]! : 0;
      const joined =
        TOKEN_BYTE[after] === 1 || (after === 46 && end + 1 < length && isDigit(bytes[end + 1]!));
      if (!joined && pending === 0) cursor = Math.max(cursor, end - longest);
      for (; !joined && at >= 0; at = chain[at]!) {
        const pattern = output[at]!;
        const start = end - lengths[pattern]!;
        if (start > 0) {
          const before = bytes[start - 1]!;
          if (TOKEN_BYTE[before] === 1 || (before === 46 && isDigit(bytes[start]!))) continue;
        }
        // Matches at one start come shortest first: the last is the longest.
        const slot = start & mask;
        if (ends[slot] === 0) pending++;
        ends[slot] = end;
        picks[slot] = pattern;
        if (start + longest - 1 < due) due = start + longest - 1;
      }
    }
    // A match still to come ends after i + 1, so starts after i + 1 - longest: decide those before,
    // once the earliest pending start is among them.
    if (i < due) continue;
    // From the earliest pending start: the ring holds only the last `size` starts' candidates.
    cursor = Math.max(cursor, due - longest + 1);
    for (const last = i + 1 - longest; pending !== 0 && cursor <= last; cursor++) {
      const slot = cursor & mask;
      const end = ends[slot]!;
      if (end === 0) continue;
      ends[slot] = 0;
      pending--;
      if (cursor < reached) continue;
      found(cursor, end, picks[slot]!);
      reached = end;
    }
    due = Number.MAX_SAFE_INTEGER;
    for (let start = cursor; pending !== 0 && start <= i; start++) {
      if (ends[start & mask] !== 0) {
        due = start + longest - 1;
        break;
      }
    }
  }
}

/** Tokens whose suggestions a matcher keeps at once (see `suggest`). */
const SUGGESTIONS_CACHED = 10_000;

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

/** The characters ids are made of, slashes included: `[A-Za-z0-9._:/-]`. */
const ID_BYTE = new Uint8Array(256);
for (const byte of encoder.encode('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/-')) {
  ID_BYTE[byte] = 1;
}
const SLASH = 47;
const isAlphanumeric = (byte: number) =>
  (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122);

/** A `.` or `:` ending a token ends a sentence or a label, not the token. */
const isTrailing = (byte: number) => byte === 46 || byte === 58;

/** What near misses are judged against: the listed ids, and each catalog namespace's models. */
interface Namespaces {
  listed: Set<string>;
  byVendor: Map<string, { id: string; name: string }[]>;
  /** The longest vendor, in bytes: a longer segment is no vendor, and is not decoded to find out. */
  longestVendor: number;
}

const utf8 = new TextDecoder();
/** ASCII bytes (id characters only) as a string, lower-cased. */
const asciiLower = (bytes: Uint8Array, start: number, end: number) =>
  utf8.decode(bytes.subarray(start, end)).toLowerCase();

/**
 * The `vendor/name` tokens of UTF-8 bytes that may be near misses, in order: every two neighbouring
 * `/`-separated segments of a run of id characters (so that the id inside a path or URL is seen
 * too), each segment starting with a letter or digit, the pair a whole token. Whether a reference
 * covers it is for the caller to ask first: it costs nothing, where `unlisted` decodes the token
 * (on a minified line naming a catalog id 700,000 times, decoding each first took 40 % of the time).
 *
 * Runs are found from their slashes (a native search), so a run without one is never walked; each
 * byte of a run with one is walked at most three times. Linear whatever the text: a pattern like
 * `[\w.-]*\/` would retry every start of a long run without a slash.
 */
class TokenCursor {
  /** The current token, once `next()` said there is one: offsets in bytes. */
  start = 0;
  end = 0;
  private vendorEnd = 0;
  /** Where the next run is looked for. */
  private from = 0;
  /** The current run's end, and its segment that the next pair starts with (-1: no run). */
  private runEnd = 0;
  private segment = -1;
  private segmentEnd = 0;
  private readonly unit: (i: number) => number;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly namespaces: Namespaces,
  ) {
    this.unit = (i) => bytes[i]!;
  }

  next(): boolean {
    const { bytes } = this;
    for (;;) {
      if (this.segment < 0) {
        const slash = bytes.indexOf(SLASH, this.from);
        if (slash === -1) return false;
        let start = slash;
        while (start > this.from && ID_BYTE[bytes[start - 1]!]) start--;
        let end = slash + 1;
        while (end < bytes.length && ID_BYTE[bytes[end]!]) end++;
        this.runEnd = end;
        this.from = end;
        this.segment = start;
        this.segmentEnd = slash;
      }
      if (this.segmentEnd >= this.runEnd) {
        this.segment = -1;
        continue;
      }
      const nameStart = this.segmentEnd + 1;
      // The run's next slash, looked for in the run only: a native search went on to the text's next
      // slash, and its call cost more than walking a segment's few bytes.
      let nameEnd = nameStart;
      while (nameEnd < this.runEnd && bytes[nameEnd] !== SLASH) nameEnd++;
      const vendorStart = this.segment;
      const vendorEnd = this.segmentEnd;
      this.segment = nameStart;
      this.segmentEnd = nameEnd;
      if (this.take(vendorStart, vendorEnd, nameStart, nameEnd)) return true;
    }
  }

  /** The current token, lower-cased, if its vendor is a catalog vendor and the catalog does not list it. */
  unlisted(): string | undefined {
    const { bytes, namespaces, start, end } = this;
    if (this.vendorEnd - start > namespaces.longestVendor) return undefined;
    if (!namespaces.byVendor.has(asciiLower(bytes, start, this.vendorEnd))) return undefined;
    const token = asciiLower(bytes, start, end);
    return namespaces.listed.has(token) ? undefined : token;
  }

  private take(vendorStart: number, vendorEnd: number, nameStart: number, nameEnd: number): boolean {
    const { bytes } = this;
    if (vendorEnd === vendorStart || !isAlphanumeric(bytes[vendorStart]!)) return false;
    if (nameEnd === nameStart || !isAlphanumeric(bytes[nameStart]!)) return false;
    let end = nameEnd;
    while (isTrailing(bytes[end - 1]!)) end--;
    if (!wholeToken(this.unit, bytes.length, vendorStart, end)) return false;
    this.start = vendorStart;
    this.vendorEnd = vendorEnd;
    this.end = end;
    return true;
  }
}

/**
 * A monotone map between UTF-8 byte offsets and UTF-16 code-unit offsets of one text: each call's
 * offset at least the last's. A 4-byte character is two code units.
 */
function unitsOf(bytes: Uint8Array): (byteOffset: number) => number {
  let at = 0;
  let units = 0;
  return (offset) => {
    for (; at < offset; at++) {
      const byte = bytes[at]!;
      if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
    }
    return units;
  };
}

function bytesOf(bytes: Uint8Array): (unitOffset: number) => number {
  let at = 0;
  let units = 0;
  return (offset) => {
    while (units < offset && at < bytes.length) {
      const byte = bytes[at]!;
      at += byte < 0x80 ? 1 : byte < 0xe0 ? 2 : byte < 0xf0 ? 3 : 4;
      units += byte >= 0xf0 ? 2 : 1;
    }
    return at;
  };
}

/**
 * 1-based line and column (UTF-16 code units, as editors and SARIF count them) of each byte offset
 * of a UTF-8 text; `offsets` ascending. One pass, as `locate`.
 */
export function locateBytes(
  bytes: Uint8Array,
  offsets: readonly number[],
): { line: number; column: number }[] {
  const places: { line: number; column: number }[] = [];
  let line = 1;
  let newline = bytes.indexOf(10);
  let at = 0;
  let column = 1;
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      at = newline + 1;
      column = 1;
      newline = bytes.indexOf(10, at);
    }
    for (; at < offset; at++) {
      const byte = bytes[at]!;
      if ((byte & 0xc0) !== 0x80) column += byte >= 0xf0 ? 2 : 1;
    }
    places.push({ line, column });
  }
  return places;
}

/** The matcher that `compiled` describes (from `compileMatcher`, here or in another thread). */
export function matcherFrom(compiled: CompiledMatcher): ModelMatcher {
  const { automaton, models } = compiled;
  const namespaces: Namespaces = { listed: new Set(), byVendor: new Map(), longestVendor: 0 };
  for (const model of models) {
    const id = model.id.toLowerCase();
    namespaces.listed.add(id);
    if (model.huggingfaceId) namespaces.listed.add(model.huggingfaceId.toLowerCase());
    const slash = id.indexOf('/');
    if (slash <= 0) continue;
    const vendor = id.slice(0, slash);
    const entries = namespaces.byVendor.get(vendor) ?? [];
    entries.push({ id: model.id, name: id.slice(slash + 1) });
    namespaces.byVendor.set(vendor, entries);
    namespaces.longestVendor = Math.max(namespaces.longestVendor, encoder.encode(vendor).length);
  }
  // A token's suggestions depend on the token alone: worked out once however often it recurs. The
  // memory is bounded (SUGGESTIONS_CACHED, then started afresh): ten files of distinct near misses
  // kept 1.4 million tokens here, some 300 MB.
  const suggestionsFor = new Map<string, string[]>();
  const suggest = (token: string): string[] => {
    const known = suggestionsFor.get(token);
    if (known) return known;
    const slash = token.indexOf('/');
    const name = token.slice(slash + 1);
    const scored: [number, string][] = [];
    for (const model of namespaces.byVendor.get(token.slice(0, slash)) ?? []) {
      const score = closeness(name, model.name);
      if (score !== undefined) scored.push([score, model.id]);
    }
    scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
    const suggestions = scored.slice(0, MAX_SUGGESTIONS).map(([, id]) => id);
    if (suggestionsFor.size >= SUGGESTIONS_CACHED) suggestionsFor.clear();
    suggestionsFor.set(token, suggestions);
    return suggestions;
  };
  // Which patterns a `spans` call has listed: marked with the call's number, so that no call
  // allocates or clears a table.
  const listedIn = new Uint32Array(automaton.patterns.length);
  let call = 0;

  return {
    compiled,
    references(text) {
      const bytes = encoder.encode(text);
      const units = bytes.length === text.length ? (offset: number) => offset : unitsOf(bytes);
      const references: Reference[] = [];
      eachReference(automaton, bytes, (start, end, index) => {
        const { modelId, kind } = automaton.patterns[index]!;
        references.push({ start: units(start), end: units(end), modelId, kind });
      });
      return references;
    },
    nearMisses(text, references) {
      const bytes = encoder.encode(text);
      const ascii = bytes.length === text.length;
      const same = (offset: number) => offset;
      const [startByte, endByte] = ascii ? [same, same] : [bytesOf(bytes), bytesOf(bytes)];
      const covered = references.map((r) => ({ start: startByte(r.start), end: endByte(r.end) }));
      const [startUnit, endUnit] = ascii ? [same, same] : [unitsOf(bytes), unitsOf(bytes)];
      const misses: NearMiss[] = [];
      const tokens = new TokenCursor(bytes, namespaces);
      let next = 0;
      while (tokens.next()) {
        const { start, end } = tokens;
        while (next < covered.length && covered[next]!.end <= start) next++;
        if (next < covered.length && covered[next]!.start < end) continue;
        const token = tokens.unlisted();
        const suggestions = token === undefined ? [] : suggest(token);
        if (suggestions.length) misses.push({ start: startUnit(start), end: endUnit(end), suggestions });
      }
      return misses;
    },
    spans(bytes, { limit, hardLimit = Number.POSITIVE_INFINITY, silenced }) {
      const spans: Span[] = [];
      let repeats = 0;
      const dropped: DroppedSpans = { count: 0, nearMisses: 0, models: new Map() };
      const mark = ++call;
      const listedMisses = new Set<string>();
      /**
       * A span found, in order: listed, counted as a repeat, or left out (silenced). A reference's
       * empty suggestions are made only if it is listed: one made for each repeat was most of what
       * a scan of a line naming one model hundreds of thousands of times allocated.
       */
      const offer = (start: number, end: number, pattern: number, token: string, suggestions?: string[]) => {
        if (silenced?.(start)) return;
        const named = pattern >= 0 ? listedIn[pattern] === mark : listedMisses.has(token);
        if (named && spans.length >= limit) {
          repeats++;
          return;
        }
        const modelId = pattern >= 0 ? automaton.patterns[pattern]!.modelId : null;
        if (spans.length >= hardLimit) {
          dropped.count++;
          if (modelId === null) dropped.nearMisses++;
          else dropped.models.set(modelId, (dropped.models.get(modelId) ?? 0) + 1);
          return;
        }
        if (pattern >= 0) listedIn[pattern] = mark;
        else listedMisses.add(token);
        spans.push({ start, end, modelId, suggestions: suggestions ?? [] });
      };
      // References come from the automaton and tokens from their own pass, both in order: each token
      // starting before a reference is decided when that reference comes (it overlaps it, the one
      // before, or neither), so the two merge in order without either being listed first.
      const tokens = new TokenCursor(bytes, namespaces);
      let token = tokens.next();
      let covered = 0;
      const tokensBefore = (limitStart: number) => {
        for (; token && tokens.start < limitStart; token = tokens.next()) {
          if (tokens.start < covered || tokens.end > limitStart) continue;
          const unlisted = tokens.unlisted();
          const suggestions = unlisted === undefined ? [] : suggest(unlisted);
          if (suggestions.length) offer(tokens.start, tokens.end, -1, unlisted!, suggestions);
        }
      };
      eachReference(automaton, bytes, (start, end, pattern) => {
        tokensBefore(start);
        offer(start, end, pattern, '');
        covered = end;
      });
      tokensBefore(Number.POSITIVE_INFINITY);
      return { spans, repeats, dropped };
    },
  };
}

export function compileMatcher(models: readonly CatalogNames[]): ModelMatcher {
  const names = models.map(({ id, name, huggingfaceId }) => ({ id, name, huggingfaceId }));
  return matcherFrom({ models: names, automaton: compile(collectPatterns(names)) });
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
