/**
 * Finds the models a text names: catalog ids (`openai/gpt-4o`), Hugging Face ids
 * (`meta-llama/Llama-3.1-8B-Instruct`) and bare names as code writes them (`gpt-4o-mini`: a catalog
 * id's part after the vendor, or a model's `name`). Pure: text in, references out.
 *
 * One pass per text, whatever the catalog's size: every name is a pattern of one Aho-Corasick
 * automaton (automaton.ts), so the cost grows with the text's length, not length × models. Matching
 * is ASCII case-insensitive (catalog ids are ASCII; folding only A-Z keeps every offset the text's
 * own), on whole tokens, and the longest match wins (docs/check.md).
 *
 * The automaton reads UTF-8 bytes: a file is matched as read, with no decoded copy of it (a 50 MB
 * file held 50 MB as bytes and 50 MB more as a string). Folding only A-Z, and judging token
 * boundaries only by ASCII characters, find in the bytes exactly what they find in the decoded text:
 * no byte of a multi-byte character is ASCII. `references` and `nearMisses` take a string and give
 * offsets in UTF-16 code units; `spans` takes bytes and gives byte offsets. Near misses, unlisted
 * `vendor/name` tokens close to listed ids, are judged in near-miss.ts.
 *
 * What the text around a name says is judged in context.ts: nothing inside a URL is a reference; a
 * short or plain-word name (`o3`, `r1`, `auto`) is one only where the code says model; a version or
 * variant written after a name (`gpt-4o-2024-08-06`, `qwen/qwen3-coder:free`) is part of the
 * reference, and reported as such.
 */

import { type Automaton, compileAutomaton, eachReference } from './automaton.js';
import { describeSuffix, inUrl, modelWordAfter, saysModel, vendorSpellings } from './context.js';
import { namespacesOf, suggester, TokenCursor } from './near-miss.js';
import { bytesOf, unitsOf } from './offsets.js';

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
  /** A version written after the name (`2024-05-13` in `gpt-4o-2024-05-13`), as written. */
  version?: string;
  /** A variant written after the name (`free` in `qwen/qwen3-coder:free`), lower-cased. */
  variant?: string;
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
  /** As Reference has them. */
  version?: string;
  variant?: string;
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
  automaton: Automaton<Pattern>;
}

const KIND_RANK: Record<ReferenceKind, number> = { id: 0, huggingface: 1, name: 2 };

const encoder = new TextEncoder();
const utf8 = new TextDecoder();
/** A match's text, folded as the automaton folds it (A-Z only). */
const asciiText = (bytes: Uint8Array, start: number, end: number) =>
  utf8.decode(bytes.subarray(start, end)).replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

interface Pattern {
  modelId: string;
  kind: ReferenceKind;
  /**
   * A bare name of three characters or fewer, or one plain word (`o3`, `r1`, `auto`, `fusion`):
   * too often something else to count without code that says model around it.
   */
  ambiguous: boolean;
}

const isAmbiguous = (name: string) => name.length <= 3 || /^[a-z]+$/.test(name);

/** The names each model is known by, folded, with the best claim on each name kept. */
function collectPatterns(models: readonly CatalogNames[]): Map<string, Pattern> {
  const patterns = new Map<string, Pattern>();
  const add = (name: string | null | undefined, modelId: string, kind: ReferenceKind) => {
    const key = name?.trim().toLowerCase();
    if (!key) return;
    const held = patterns.get(key);
    // Two models sharing a name: an id beats a Hugging Face id beats a bare name; else the first.
    if (held && KIND_RANK[held.kind] <= KIND_RANK[kind]) return;
    patterns.set(key, { modelId, kind, ambiguous: kind === 'name' && isAmbiguous(key) });
  };
  for (const model of models) {
    add(model.id, model.id, 'id');
    add(model.huggingfaceId, model.id, 'huggingface');
    const slash = model.id.indexOf('/');
    if (slash > 0) add(model.id.slice(slash + 1), model.id, 'name');
    add(model.name, model.id, 'name');
  }
  // A variant listed without its base (`openai/gpt-5-codex:batch` alone): code names the base,
  // and means that model. Added last, so that any model of that name keeps it.
  for (const model of models) {
    const colon = model.id.indexOf(':');
    const slash = model.id.indexOf('/');
    if (colon <= slash + 1) continue;
    const base = model.id.slice(0, colon);
    if (patterns.has(base.toLowerCase())) continue;
    add(base, model.id, 'id');
    add(base.slice(slash + 1), model.id, 'name');
  }
  return patterns;
}

/** The matcher that `compiled` describes (from `compileMatcher`, here or in another thread). */
export function matcherFrom(compiled: CompiledMatcher): ModelMatcher {
  const { automaton, models } = compiled;
  const namespaces = namespacesOf(models);
  const suggest = suggester(namespaces);
  const vendors = vendorSpellings(namespaces.byVendor.keys());
  /** Whether a match is a reference, by what the text around it says (context.ts). */
  const stands = (bytes: Uint8Array, start: number, end: number, pattern: number, previous: number) =>
    !inUrl(bytes, start) &&
    (!automaton.patterns[pattern]!.ambiguous ||
      end - start > automaton.lengths[pattern]! ||
      saysModel(bytes, start, vendors, previous) ||
      modelWordAfter(bytes, end));
  /** The version or variant written after a match's name, if its end lies past the name. */
  const suffixOf = (bytes: Uint8Array, start: number, end: number, pattern: number) => {
    const nameEnd = start + automaton.lengths[pattern]!;
    return end > nameEnd ? describeSuffix(utf8.decode(bytes.subarray(nameEnd, end))) : undefined;
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
      /** Where the last reference kept starts: a short name in a list after it is a model too. */
      let previous = -1;
      eachReference(automaton, bytes, (start, end, index) => {
        if (!stands(bytes, start, end, index, previous)) return;
        previous = start;
        const { modelId, kind } = automaton.patterns[index]!;
        references.push({
          start: units(start),
          end: units(end),
          modelId,
          kind,
          ...suffixOf(bytes, start, end, index),
        });
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
      /** Near misses listed, and references with a version or variant, by their text. */
      const listedTexts = new Set<string>();
      /**
       * A span found, in order: listed, counted as a repeat, or left out (silenced). A reference's
       * empty suggestions are made only if it is listed: one made for each repeat was most of what
       * a scan of a line naming one model hundreds of thousands of times allocated.
       */
      const offer = (start: number, end: number, pattern: number, token: string, suggestions?: string[]) => {
        if (silenced?.(start)) return;
        const named = token === '' ? listedIn[pattern] === mark : listedTexts.has(token);
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
        if (token === '') listedIn[pattern] = mark;
        else listedTexts.add(token);
        const suffix = pattern >= 0 ? suffixOf(bytes, start, end, pattern) : undefined;
        spans.push({ start, end, modelId, suggestions: suggestions ?? [], ...suffix });
      };
      // References come from the automaton and tokens from their own pass, both in order: each token
      // starting before a reference is decided when that reference comes (it overlaps it, the one
      // before, or neither), so the two merge in order without either being listed first.
      const tokens = new TokenCursor(bytes, namespaces);
      let token = tokens.next();
      let covered = 0;
      let previous = -1;
      const tokensBefore = (limitStart: number) => {
        for (; token && tokens.start < limitStart; token = tokens.next()) {
          if (tokens.start < covered || tokens.end > limitStart) continue;
          const unlisted = tokens.unlisted();
          const suggestions = unlisted === undefined ? [] : suggest(unlisted);
          if (suggestions.length) offer(tokens.start, tokens.end, -1, unlisted!, suggestions);
        }
      };
      eachReference(automaton, bytes, (start, end, pattern) => {
        if (!stands(bytes, start, end, pattern, previous)) return;
        previous = start;
        tokensBefore(start);
        // A version or variant makes another text of the same pattern: listed as a text of its own.
        const suffixed = end - start > automaton.lengths[pattern]!;
        offer(start, end, pattern, suffixed ? `${pattern}\u0000${asciiText(bytes, start, end)}` : '');
        covered = end;
      });
      tokensBefore(Number.POSITIVE_INFINITY);
      return { spans, repeats, dropped };
    },
  };
}

export function compileMatcher(models: readonly CatalogNames[]): ModelMatcher {
  const names = models.map(({ id, name, huggingfaceId }) => ({ id, name, huggingfaceId }));
  return matcherFrom({ models: names, automaton: compileAutomaton(collectPatterns(names)) });
}
