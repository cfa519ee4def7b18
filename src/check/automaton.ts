/**
 * One Aho-Corasick automaton over every name, compiled to a table of transitions: one pass per text
 * whatever the number of names, so the cost grows with the text's length, not length × names.
 *
 * It reads UTF-8 bytes: a file is matched as read, with no decoded copy of it (a 50 MB file held
 * 50 MB as bytes and 50 MB more as a string). Only A-Z is folded, which keeps every offset the
 * text's own.
 */

import { suffixEnd } from './context.js';
import { isDigit, TOKEN_BYTE } from './token-boundaries.js';

const encoder = new TextEncoder();

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
export interface Automaton<P = unknown> {
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
  /** What each pattern stands for, by its index. */
  patterns: P[];
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
  // The root's moves are all worked out (compileAutomaton): the way down ends there at the latest.
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
export function compileAutomaton<P>(patterns: Map<string, P>): Automaton<P> {
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
  const automaton: Automaton<P> = {
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
 * leftmost first, then longest. A reference's `end` may lie past its pattern's length: a version or
 * variant written after the name is part of it (context.ts, `suffixEnd`). A match is decided once no match still to come could start at or
 * before it (all are at most `longest` long), so only the latest `longest` bytes' candidates are
 * held, the longest per start, and never a list of every candidate (700,000 of them on one 50 MB
 * minified line: 75 MB).
 */
export function eachReference(
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
      // wholeToken, inlined: what follows is the same for every match ending here. A version or
      // variant written after the name (`-2024-05-13`, `:free`) is read as part of it: `reach`.
      const after = end < length ? bytes[end]! : 0;
      const suffix = after === 45 || after === 58 ? suffixEnd(bytes, end) : -1;
      const reach = suffix > 0 ? suffix : end;
      const joined =
        suffix < 0 &&
        (TOKEN_BYTE[after] === 1 || (after === 46 && end + 1 < length && isDigit(bytes[end + 1]!)));
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
        ends[slot] = reach;
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
