/**
 * Keeping secrets out of everything the runner prints: the API key wherever it was put (in its own
 * variable or by mistake in another), tokens that look like keys, and credentials in URLs. Pure.
 */

import { oneLine } from './terminal.js';

export const REDACTED = '[redacted]';

/** A shorter "secret" would blank out ordinary words; keys are much longer. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Tokens shaped like credentials: well-known key prefixes (ours, `mfsk_`, and the common ones of
 * other services), and any long run of letters and digits mixed, the shape of a random key. Only
 * for values echoed back from settings: ordinary log text keeps its ids.
 */
const PREFIXED_SECRET =
  /\b(?:mfsk|sk|pk|rk|ghp|gho|ghs|ghu|github_pat|glpat|xox[abprs])[-_][A-Za-z0-9_-]{6,}/g;
const SECRET_SHAPED = new RegExp(
  `${PREFIXED_SECRET.source}|(?=[A-Za-z0-9_+=-]*\\d)(?=[A-Za-z0-9_+=-]*[A-Za-z])[A-Za-z0-9_+=-]{20,}`,
  'g',
);

/** `user:password@` after a scheme, up to the last `@` before the host: the password may hold an `@`. */
const URL_USERINFO = /(\/\/)[^/\s]*@/g;

const BEARER_TOKEN = /(bearer\s+)[^\s"',;]+/gi;

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

/**
 * Credential-shaped tokens found in a setting's value: added to the secrets the logs hide. In a
 * URL, the host is judged by key prefixes only (a host such as `app-abc123xyz456-uc.a.run.app`
 * is long and mixed, yet is no secret, and doctor must be able to name it); its other parts, and
 * a value that is not a URL, by any credential shape.
 */
export function secretShapedTokens(text: string): string[] {
  let url: URL | undefined;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    url = undefined;
  }
  if (!url || !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text.match(SECRET_SHAPED) ?? [];
  const rest = [url.username, url.password, url.pathname, url.search, url.hash].map(decodeSafely).join(' ');
  // A host is hidden only by a key's prefix (or, in collectSecrets, as the configured key
  // lowercased): doctor must be able to name a host, however it is spelt.
  return [...(url.hostname.match(PREFIXED_SECRET) ?? []), ...(rest.match(SECRET_SHAPED) ?? [])];
}

/** Tokens that carry a known key prefix (`mfsk_…`, `ghp_…`): for values, like paths, where a long run of letters and digits is ordinary. */
export function prefixedSecrets(text: string): string[] {
  return text.match(PREFIXED_SECRET) ?? [];
}

function decodeSafely(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
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

/** The longest echo of a setting's value: enough to recognise it, not a page of pasted text. */
const MAX_ECHO = 120;

/**
 * A setting's value as it may be quoted back in a message: the secrets and anything shaped like a
 * credential hidden, control characters dropped, long values cut.
 */
export function echoValue(value: string, secrets: readonly (string | undefined)[]): string {
  // Printable first, hidden after: a key split by a control character is whole again once it goes.
  const hidden = redactCredentials(redactSecrets(oneLine(value), secrets).replace(SECRET_SHAPED, REDACTED));
  return hidden.length > MAX_ECHO ? `${hidden.slice(0, MAX_ECHO)}…` : hidden;
}

/**
 * A proxy URL for display, rebuilt from its parsed scheme, host and port, with `***` standing for
 * any username and password: a password with an `@`, a space or a `/` cannot survive, as it could a
 * pattern. A value that does not parse is not shown at all: undefined.
 */
export function displayUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const credentials = url.username || url.password ? '***@' : '';
  // A key pasted where the proxy belongs would otherwise be shown as its host name.
  return `${url.protocol}//${credentials}${url.host.replace(PREFIXED_SECRET, REDACTED)}`;
}
