/**
 * Markdown as GitHub reads it, for the docs tests: the links a page makes, and the anchors it
 * offers (heading slugs by GitHub's rules, and explicit `<a id>` / `<a name>`).
 */

/** The lines outside fenced code blocks: a `#` or a link inside a fence is code, not Markdown. */
function outsideFences(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker === undefined) lines.push(line);
      else fence = marker;
    } else if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined;
    }
  }
  return lines;
}

/** The text outside fenced blocks and inline code spans. */
function prose(markdown: string): string {
  return outsideFences(markdown)
    .map((line) => line.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length)))
    .join('\n');
}

/**
 * GitHub's heading anchor: the rendered text, lowercased, with everything but letters, digits,
 * marks, connector punctuation (`_`), `-` and spaces dropped, then each space turned into `-`.
 */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[*`]/g, '') // emphasis and code markers
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page offers: heading slugs (duplicates get -1, -2, …) and explicit ids/names. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  // Headings are read with their code spans intact (a code span's text is part of the slug).
  for (const line of outsideFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of prose(markdown).matchAll(/<a\s[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) {
    found.add(match[1]!);
  }
  return found;
}

/** A heading and the lines under it, up to the next heading of its level or higher. */
export interface Section {
  level: number;
  title: string;
  body: string;
}

/** The page's sections of one heading level, in order (headings inside fences are code, not headings). */
export function sections(markdown: string, level: number): Section[] {
  const found: Section[] = [];
  let current: Section | undefined;
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else {
      const heading = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+\s*)?$/.exec(line);
      if (heading && heading[1]!.length <= level) {
        current = heading[1]!.length === level ? { level, title: heading[2]!, body: '' } : undefined;
        if (current) found.push(current);
        continue;
      }
    }
    if (current) current.body += `${line}\n`;
  }
  return found;
}

/** Relative link targets in a page: `[text](target)`, `[ref]: target` and `<a href="target">`. */
export function links(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/<a\s[^>]*?\bhref\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}
