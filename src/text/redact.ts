/**
 * Keeping secrets out of everything the runner prints: the API key wherever it was put (in its own
 * variable or by mistake in another), tokens that may be keys, and credentials in URLs. A value
 * that came from outside is shown only through `echoValue`, `echoUrl` or `echoPath`: cleaned of
 * what acts on a terminal, cut short, and with anything that may be a key hidden. Pure, and linear
 * in the length of the value.
 */

import {
  isHostName,
  isKeyLike,
  isKeyLikeHost,
  keyLikePathParts,
  keyLikeQueryParts,
  keyLikeWholePath,
  PREFIXED_SECRET,
  prefixedSecrets,
  withoutOuterSlashes,
} from './key-shapes.js';
import { oneLine } from './terminal.js';

export { prefixedSecrets };

export const REDACTED = '[redacted]';

/** A shorter "secret" would blank out ordinary words; keys are much longer. */
export const MIN_SECRET_LENGTH = 6;

/** `user:password@` after a scheme, up to the last `@` before the host: the password may hold an `@`. */
const URL_USERINFO = /(\/\/)[^/\s]*@/g;

const BEARER_TOKEN = /(bearer\s+)[^\s"',;]+/gi;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The values worth hiding: long enough not to be ordinary words. */
export function secretValues(values: readonly (string | undefined)[]): string[] {
  const out = new Set<string>();
  for (const value of values) if (value !== undefined && value.length >= MIN_SECRET_LENGTH) out.add(value);
  // The longest first: a key that contains another secret is hidden whole.
  return [...out].sort((a, b) => b.length - a.length);
}

/** Hides exact secret values (the key) wherever they appear, and nothing else. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function decodeSafely(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * What in one URL may be a key: its host by `isKeyLikeHost` (doctor must be able to name a host
 * with dots, however it is spelt), the password whole, and the long parts of the user name, path,
 * query and fragment, as written and decoded.
 */
function urlSecrets(url: URL): string[] {
  const found = isKeyLikeHost(url.hostname) ? [url.hostname] : [];
  const password = decodeSafely(url.password);
  if (password.length >= MIN_SECRET_LENGTH) found.push(url.password, password);
  for (const user of [url.username, decodeSafely(url.username)]) if (isKeyLike(user)) found.push(user);
  for (const path of [url.pathname, decodeSafely(url.pathname)]) found.push(...keyLikePathParts(path));
  const query = `${url.search}${url.hash}`;
  for (const text of [query, decodeSafely(query)]) found.push(...keyLikeQueryParts(text));
  return found;
}

/**
 * Tokens in a setting's value that may be keys: added to the secrets every output hides. The value
 * is read as one URL, and as a list (`NO_PROXY`'s commas, spaces) of URLs, bare `host:port`s or
 * plain tokens.
 */
export function secretShapedTokens(text: string): string[] {
  // A URL as a whole first: its path may hold spaces, which the URL parser encodes.
  const whole = SCHEME.test(text) ? parseUrl(text) : undefined;
  const found: string[] = whole ? urlSecrets(whole) : [];
  for (const part of text.split(/[\s,]+/)) {
    if (!part) continue;
    found.push(...prefixedSecrets(part));
    const hasScheme = SCHEME.test(part);
    const url = parseUrl(hasScheme ? part : `http://${part}`);
    // A bare `proxy.corp:3128` is a host; a bare long token with no dot is a key read as one.
    if (url && (hasScheme || /[.:[]/.test(url.hostname))) found.push(...urlSecrets(url));
    else if (isKeyLike(part)) found.push(part);
  }
  return found;
}

/**
 * The secrets together with the forms a serialiser gives them: a key holding `"` or `\` reads
 * differently once JSON-escaped, and would slip past a search for its plain form.
 */
export function withEscapedForms(secrets: readonly string[]): string[] {
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  return secretValues([...secrets, ...escaped]);
}

/** Credentials in URLs (`//user:password@`) and bearer tokens in free text, as a last line of defence. */
export function redactCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@').replace(BEARER_TOKEN, `$1${REDACTED}`);
}

/** What the logger and every result pass through: the secrets, then credentials in any URL. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return redactCredentials(redactSecrets(text, secrets));
}

/** The longest echo of a value: enough to recognise it, not a page of pasted text. */
const MAX_ECHO = 120;

function cut(text: string, max = MAX_ECHO): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A URL path with every part that may be a key hidden, for a message where the path is what is wrong. */
export function echoUrlPath(path: string, secrets: readonly (string | undefined)[] = []): string {
  const clean = redactSecrets(oneLine(path), secrets);
  if (keyLikeWholePath(clean) !== undefined) return `/${REDACTED}`;
  const shown = clean.split('/').map((segment) => (isKeyLike(segment) ? REDACTED : segment));
  return cut(shown.join('/').replace(PREFIXED_SECRET, REDACTED));
}

/**
 * A URL for a message: scheme, host and port, `***@` for any user name and password, a host that may
 * be a key hidden. Its path is shown (key-like parts hidden) only with `path`, where it is part of
 * what is wrong, and its query and fragment never (`?…`); without `path`, all of that is `/…`.
 * Undefined when it does not parse.
 */
export function echoUrl(
  raw: string,
  secrets: readonly (string | undefined)[] = [],
  { path = false }: { path?: boolean } = {},
): string | undefined {
  const url = parseUrl(raw);
  return url ? `${shownOrigin(url, secrets)}${shownRest(url, secrets, path)}` : undefined;
}

function shownRest(url: URL, secrets: readonly (string | undefined)[], path: boolean): string {
  const hasPath = url.pathname !== '/' && url.pathname !== '';
  if (!path) return hasPath || url.search || url.hash ? '/…' : '';
  const query = url.search ? '?…' : url.hash ? '#…' : '';
  return `${hasPath ? echoUrlPath(url.pathname, secrets) : query ? '/' : ''}${query}`;
}

/**
 * A host a message does not show: one that may be a key, or a dotted one that is no host name as
 * DNS spells them (`k9xq2.tz4vl`, the start of a key with `.` and `/` read as a host). Only for
 * display: as a secret it would hide that text in every host name that contains it.
 */
function hostHidden(hostname: string): boolean {
  return isKeyLikeHost(hostname) || (hostname.includes('.') && !isHostName(hostname));
}

/** A host name for a message: on one line, hidden when it may be a key. */
export function echoHost(hostname: string, secrets: readonly (string | undefined)[] = []): string {
  return hostHidden(hostname) ? REDACTED : cut(redactSecrets(oneLine(hostname), secrets));
}

/** Scheme, `***@` for any credentials, and the host and port, unless the host may be a key. */
function shownOrigin(url: URL, secrets: readonly (string | undefined)[]): string {
  const credentials = url.username || url.password ? '***@' : '';
  const host = hostHidden(url.hostname) ? `${REDACTED}${url.port ? `:${url.port}` : ''}` : url.host;
  return cut(redactSecrets(oneLine(`${url.protocol}//${credentials}${host}`), secrets));
}

/**
 * Whether an echo may show the URL's path: a short one, which holds no key (a key with `.` and `/`
 * in it reads as a path of short segments, but not as a short path).
 */
function shortPath(url: URL): boolean {
  return !isKeyLike(withoutOuterSlashes(url.pathname));
}

/**
 * One word of an echoed value: a URL with where it points and a short path (`shortPath`); a
 * bare `host[:port][/path]` the same way when its host is a plain host name, typed as the URL
 * parser writes it (lower case: a key has capitals); any other token that may be a key hidden.
 */
function echoToken(token: string): string {
  if (token === '' || /^\s/.test(token)) return token;
  if (SCHEME.test(token)) {
    const url = parseUrl(token);
    if (url) return `${shownOrigin(url, [])}${shownRest(url, [], shortPath(url))}`;
  }
  // Shorter tokens are shown as they are; a long one only when it reads as a host and a path.
  if (!isKeyLike(token)) return token.replace(PREFIXED_SECRET, REDACTED);
  const typedHost = /^[^/?#]*/.exec(token)?.[0].replace(/:\d*$/, '') ?? '';
  const bare = parseUrl(`http://${token}`);
  if (bare && bare.hostname === typedHost && isHostName(typedHost)) {
    return `${bare.host}${shownRest(bare, [], shortPath(bare))}`;
  }
  return REDACTED;
}

/**
 * A value from outside (a setting, a flag, a command name) as it may be quoted back in a message:
 * control characters, line breaks and bidi marks gone, the secrets and anything that may be a key
 * hidden, URLs shortened to where they point, the whole cut to a line.
 */
export function echoValue(value: string, secrets: readonly (string | undefined)[]): string {
  // Printable first, hidden after: a key split by a control character is whole again once it goes.
  const clean = redactSecrets(oneLine(value), secrets);
  return cut(redactCredentials(clean.split(/(\s+)/).map(echoToken).join('')));
}

/** The longest echo of a path: its start and its end (the file's name) are what the reader needs. */
const MAX_PATH = 160;

/**
 * A file path from outside, for a message: shown (a path is data, its long names ordinary), but on
 * one line, cut in the middle when long, with the secrets and prefixed keys hidden. A value with no
 * folder and no extension that may be a key (a key pasted where a path belongs) is hidden,
 * word by word.
 */
export function echoPath(path: string, secrets: readonly (string | undefined)[] = []): string {
  const clean = redactSecrets(oneLine(path), secrets)
    .replace(PREFIXED_SECRET, REDACTED)
    .split(/(\s+)/)
    .map((word) => (isKeyLike(word) && !/[/.]/.test(word) ? REDACTED : word))
    .join('');
  return clean.length > MAX_PATH ? `${clean.slice(0, 60)}…${clean.slice(-(MAX_PATH - 61))}` : clean;
}

/**
 * A URL for display, scheme, host and port only (see `echoUrl`), with `***` standing for any user
 * name and password: a password with an `@`, a space or a `/` cannot survive, as it could a
 * pattern. A value that does not parse is not shown at all: undefined.
 */
export function displayUrl(raw: string): string | undefined {
  const url = parseUrl(raw);
  return url ? shownOrigin(url, []) : undefined;
}
