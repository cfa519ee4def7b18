/**
 * Versions in model names, and the next model of a family: "Claude Sonnet 4.5" gives "Claude Sonnet
 * 4.6", its id and Hugging Face id rewritten to match.
 */

import type { Model } from './types.js';

// Enough to step past every version a run has taken; a family with more gets no new model.
const MAX_VERSION_BUMPS = 100;
// A model listed and reported at the attention reference time: novelty 1 (×50) and one news item
// (×20). Vendor activity is left out: it would need every event's catalog id.
const NEW_LISTING_SCORE = 70;

/** A version in a model name: "4.5" in "Claude Sonnet 4.5", "V3.2" in "DeepSeek V3.2", "Qwen3" in "Qwen3 Max". */
export interface Version {
  /** The token as written, e.g. "V3.2". */
  text: string;
  /** Letters before the number, e.g. "V". */
  prefix: string;
  major: number;
  minor: number | null;
  /** The name with the token replaced by a placeholder: models of one family share it. */
  family: string;
  index: number;
}

const VERSION_TOKEN = /(?<=^|[\s-])([A-Za-z]*)(\d+)(?:\.(\d+))?(?=$|[\s-])/;

export function versionOf(name: string): Version | undefined {
  const match = VERSION_TOKEN.exec(name);
  if (match === null) return undefined;
  const [text, prefix = '', major = '', minor] = match;
  const family = `${name.slice(0, match.index)}${prefix}#${name.slice(match.index + text.length)}`;
  return {
    text,
    prefix,
    major: Number(major),
    minor: minor === undefined ? null : Number(minor),
    family,
    index: match.index,
  };
}

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || (a.minor ?? -1) - (b.minor ?? -1);
}

/** The next version: a minor step ("4.5" → "4.6", "5" → "5.1"). */
export function bumped(version: Version): Version {
  const minor = (version.minor ?? 0) + 1;
  return { ...version, minor, text: `${version.prefix}${version.major}.${minor}` };
}

/**
 * `text` with its first `-` or `/` separated part that spells `from` (ignoring case) rewritten to
 * `to`, keeping that part's own spelling of the prefix letters; undefined when no part does.
 */
function replacePart(text: string, from: Version, to: Version): string | undefined {
  const parts = text.split(/([-/])/);
  const at = parts.findIndex((part) => part.toLowerCase() === from.text.toLowerCase());
  const part = parts[at];
  if (part === undefined) return undefined;
  parts[at] = `${part.slice(0, from.prefix.length)}${to.text.slice(to.prefix.length)}`;
  return parts.join('');
}

/** The catalog id with the version rewritten in its model part, e.g. openai/gpt-5.5 → openai/gpt-5.6. */
export function replaceInId(id: string, from: Version, to: Version): string | undefined {
  const slash = id.indexOf('/');
  const rewritten = replacePart(id.slice(slash + 1), from, to);
  return rewritten === undefined ? undefined : `${id.slice(0, slash + 1)}${rewritten.toLowerCase()}`;
}

function renamed(name: string, from: Version, to: Version): string {
  return `${name.slice(0, from.index)}${to.text}${name.slice(from.index + from.text.length)}`;
}

/** The next version of a family's newest model, as a new model that nobody has taken. */
export function nextModel(
  newest: Model,
  taken: ReadonlySet<string>,
): { model: Model; base: Model } | undefined {
  const from = versionOf(newest.name);
  if (from === undefined) return undefined;
  let to = bumped(from);
  for (let step = 0; step < MAX_VERSION_BUMPS; step++, to = bumped(to)) {
    const id = replaceInId(newest.id, from, to);
    if (id === undefined) return undefined;
    if (taken.has(id)) continue;
    const name = renamed(newest.name, from, to);
    const displayName = newest.displayName.endsWith(newest.name)
      ? `${newest.displayName.slice(0, newest.displayName.length - newest.name.length)}${name}`
      : name;
    const model: Model = {
      ...newest,
      id,
      name,
      displayName,
      pricing: { ...newest.pricing },
      listedAt: null,
      huggingfaceId:
        newest.huggingfaceId === null ? null : (replacePart(newest.huggingfaceId, from, to) ?? null),
      attention: { rank: 0, score: NEW_LISTING_SCORE, newsCount: 1, opinions: 0 },
      url: `https://openrouter.ai/${id}`,
    };
    return { model, base: newest };
  }
  return undefined;
}
