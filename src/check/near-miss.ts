/**
 * Near misses: `vendor/name` tokens under a catalog vendor that the catalog does not list, with the
 * listed ids closest to them.
 */

import { boundedEditDistance } from '../text/edit-distance.js';
import { asciiLower, ID_BYTE, isApiVersion, urlStartIn } from './context.js';
import { wholeToken } from './token-boundaries.js';

/** At most this many suggestions for a near miss. */
const MAX_SUGGESTIONS = 3;
/** Names that differ by at most this many edits are close. */
const MAX_EDITS = 2;

const encoder = new TextEncoder();

/** Tokens whose suggestions a matcher keeps at once (see `suggester`). */
const SUGGESTIONS_CACHED = 10_000;

/** A model name, with its `-`-separated parts (a `2024-05-13` date counting as one). */
export interface PartedName {
  text: string;
  parts: readonly string[];
}

const DATE = /\d{4}-\d\d-\d\d/;
const DATES = /\b(\d{4})-(\d{2})-(\d{2})\b/g;

/**
 * A name and its parts, split once: a near miss is compared with every listed name of its vendor,
 * and splitting both names again for each pair took more time than the rest of a file's scan.
 */
export const partedName = (text: string): PartedName => ({
  text,
  // Few names hold a date: asked first, the replace and its copy are spared for the rest.
  parts: (DATE.test(text) ? text.replace(DATES, '$1$2$3') : text).split('-'),
});

/** Whether one name is the other with one part added (`-lite`, a date, `-preview`). */
function differsByOnePart(a: PartedName, b: PartedName): boolean {
  const [shorter, longer] = a.text.length <= b.text.length ? [a.parts, b.parts] : [b.parts, a.parts];
  if (longer.length !== shorter.length + 1) return false;
  // The part added is where the two first differ; past it, the rest must match one place on.
  let same = 0;
  while (same < shorter.length && shorter[same] === longer[same]) same++;
  for (let i = same; i < shorter.length; i++) if (shorter[i] !== longer[i + 1]) return false;
  return true;
}

/**
 * How close a listed name is to an unlisted one, lower being closer, or undefined when it is not
 * close: at most two edits, or one `-`-separated part more or less (counted as one edit).
 */
export function closeness(unlisted: PartedName, listed: PartedName): number | undefined {
  const edits = boundedEditDistance(unlisted.text, listed.text, MAX_EDITS);
  if (edits <= MAX_EDITS) return edits;
  return differsByOnePart(unlisted, listed) ? 1 : undefined;
}

const SLASH = 47;
const isAlphanumeric = (byte: number) =>
  (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122);

/** A `.` or `:` ending a token ends a sentence or a label, not the token. */
const isTrailing = (byte: number) => byte === 46 || byte === 58;

/** What near misses are judged against: the listed ids, and each catalog namespace's models. */
export interface Namespaces {
  listed: Set<string>;
  byVendor: Map<string, { id: string; name: PartedName }[]>;
  /** The longest vendor, in bytes: a longer segment is no vendor, and is not decoded to find out. */
  longestVendor: number;
}

/**
 * The `vendor/name` tokens of UTF-8 bytes that may be near misses, in order: every two neighbouring
 * `/`-separated segments of a run of id characters (so that the id inside a path or URL is seen
 * too), each segment starting with a letter or digit, the pair a whole token. Whether a reference
 * covers it is for the caller to ask first: it costs nothing, where `unlisted` decodes the token
 * (on a minified line naming a catalog id 700,000 times, decoding each first took 40 % of the time).
 * A pair after a `://` in its run is in a URL, and one whose name is an API version (`openai/v1`)
 * is a path: neither is a token.
 *
 * Runs are found from their slashes (a native search), so a run without one is never walked; each
 * byte of a run with one is walked at most three times. Linear whatever the text: a pattern like
 * `[\w.-]*\/` would retry every start of a long run without a slash.
 */
export class TokenCursor {
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
  /** Where the current run's `://` is (-1: none): the pairs after it are in a URL. */
  private urlFrom = -1;
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
        this.urlFrom = urlStartIn(bytes, start, end);
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
    if (this.urlFrom >= 0 && vendorStart > this.urlFrom) return false;
    let end = nameEnd;
    while (isTrailing(bytes[end - 1]!)) end--;
    if (isApiVersion(bytes, nameStart, end)) return false;
    if (!wholeToken(this.unit, bytes.length, vendorStart, end)) return false;
    this.start = vendorStart;
    this.vendorEnd = vendorEnd;
    this.end = end;
    return true;
  }
}

/** The namespaces of a catalog's models. */
export function namespacesOf(
  models: readonly { id: string; huggingfaceId?: string | null | undefined }[],
): Namespaces {
  const namespaces: Namespaces = { listed: new Set(), byVendor: new Map(), longestVendor: 0 };
  for (const model of models) {
    const id = model.id.toLowerCase();
    namespaces.listed.add(id);
    if (model.huggingfaceId) namespaces.listed.add(model.huggingfaceId.toLowerCase());
    const slash = id.indexOf('/');
    if (slash <= 0) continue;
    const vendor = id.slice(0, slash);
    const entries = namespaces.byVendor.get(vendor) ?? [];
    entries.push({ id: model.id, name: partedName(id.slice(slash + 1)) });
    namespaces.byVendor.set(vendor, entries);
    namespaces.longestVendor = Math.max(namespaces.longestVendor, encoder.encode(vendor).length);
  }
  return namespaces;
}

/** Up to three catalog ids close to an unlisted `vendor/name` token, closest first. */
export function suggester(namespaces: Namespaces): (token: string) => string[] {
  // A token's suggestions depend on the token alone: worked out once however often it recurs. The
  // memory is bounded (SUGGESTIONS_CACHED, then started afresh): ten files of distinct near misses
  // kept 1.4 million tokens here, some 300 MB.
  const suggestionsFor = new Map<string, string[]>();
  return (token) => {
    const known = suggestionsFor.get(token);
    if (known) return known;
    const slash = token.indexOf('/');
    const name = partedName(token.slice(slash + 1));
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
}
