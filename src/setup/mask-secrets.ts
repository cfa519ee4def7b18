/**
 * A client's file as `setup --print` may show it: a preview meant to be pasted into a chat or an
 * issue, so every secret-looking value in it is masked, other servers' as well as ours. A diff line
 * is a piece of a JSON or TOML file, read without its context (which object a line is in is not
 * known), so values are judged by their own name and form:
 * - a string whose key names a secret (`GITHUB_TOKEN`, `apiKey`, `Authorization`, `password`) is
 *   masked whole; a `Bearer <token>` keeps its `Bearer`;
 * - in any other string, tokens that may be keys are masked: those with a key's prefix (`ghp_…`,
 *   `sk-…`), a `user:password@` and the key-like parts of a URL, and any long word with nothing
 *   that paths, hosts and package names are made of (`/`, `.`, `@`, `:`) that mixes letters with
 *   digits or capitals with small letters. A key with a `/` or `.` in it is masked only by its
 *   name: in a file, such a word is far more often a path.
 * Placeholders (`<…>`, VS Code's `${input:…}`) are left as they are: they are no secret. Pure, and
 * linear in the text's length.
 */

import { prefixedSecrets, REDACTED, redactCredentials, secretShapedTokens } from '../text/redact.js';

/** Words that, in a key's name, say its value is a secret. */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'session',
  'bearer',
  'pat',
]);

/** The words of a key's name: `GITHUB_TOKEN`, `apiKey`, `X-Api-Key`, `auth.token`. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function namesSecret(name: string): boolean {
  return nameWords(name).some((word) => SECRET_WORDS.has(word));
}

const PLACEHOLDER = /^(?:<[^>]*>|\$\{input:[^}]*\})$/;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Shorter words are ordinary: names, versions, flags. */
const MIN_KEY_WORD = 20;

/** A word that may be a key: long, none of `/ . @ :`, letters mixed with digits or of both cases. */
function keyLikeWord(word: string): boolean {
  if (word.length < MIN_KEY_WORD || /[/.@:]/.test(word)) return false;
  const letters = /[A-Za-z]/.test(word);
  return (letters && /\d/.test(word)) || (/[a-z]/.test(word) && /[A-Z]/.test(word));
}

function hide(text: string, tokens: readonly string[]): string {
  let out = text;
  for (const token of tokens) if (token) out = out.split(token).join(REDACTED);
  return out;
}

/** A string value, its escapes as the file has them, masked for showing. */
function maskValue(name: string | undefined, raw: string): string {
  if (PLACEHOLDER.test(raw)) return raw;
  if (name !== undefined && namesSecret(name)) {
    const bearer = /^(bearer|basic|token)\s+/i.exec(raw);
    return bearer ? `${bearer[0]}${REDACTED}` : REDACTED;
  }
  const shown = SCHEME.test(raw) ? hide(redactCredentials(raw), secretShapedTokens(raw)) : raw;
  return shown.replace(/[^\s=,;]+/g, (word) =>
    keyLikeWord(word) ? REDACTED : hide(word, prefixedSecrets(word)),
  );
}

/**
 * A quoted string, JSON's or TOML's basic (`"…"`) or literal (`'…'`) kind, with the bare or quoted
 * key and the `:` or `=` before it when it is a member's value. A bare key starts only where a word
 * does: tried again from inside a long run of word characters, it would cost the run's length at
 * each of its characters.
 */
const STRING_WITH_KEY =
  /(?:("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+)(\s*[:=]\s*))?("(?:[^"\\\n]|\\.)*"|'[^'\n]*')/g;

function unquote(key: string): string {
  return /^["']/.test(key) ? key.slice(1, -1) : key;
}

/** One line of a JSON or TOML file with its secret-looking values masked. */
export function maskSecretsInLine(line: string): string {
  return line.replace(
    STRING_WITH_KEY,
    (_all, key: string | undefined, sep: string | undefined, value: string) => {
      const quote = value[0]!;
      const masked = maskValue(key === undefined ? undefined : unquote(key), value.slice(1, -1));
      return `${key ?? ''}${sep ?? ''}${quote}${masked}${quote}`;
    },
  );
}

/** A diff of a client's file with the secret-looking values of its lines masked; headers kept. */
export function maskSecretsInDiff(diff: string): string {
  return diff
    .split('\n')
    .map((line) => (/^(---|\+\+\+|@@) /.test(line) ? line : maskSecretsInLine(line)))
    .join('\n');
}
