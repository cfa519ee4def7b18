/**
 * The two settings every call to the service needs, the key and the base URL, checked and
 * explained: what is wrong with each, and how to fix it where the reader sets it (a shell or a
 * client's config). A problem here does not stop the server; config.ts keeps it as `setupError`.
 */

import { type Audience, whereToSet } from '../audience.js';
import { ConfigError } from '../errors.js';
import { isLoopbackHost } from '../net/loopback.js';
import { withoutTrailingSlashes } from '../text/key-shapes.js';
import { echoHost, echoUrl, echoUrlPath, echoValue, secretShapedTokens } from '../text/redact.js';
import { ENV, type Env, envValue, type Secrets, type Source } from './setting-source.js';

const KEY_EXAMPLE = `${ENV.apiKey}=<your key>`;
const BASE_URL_EXAMPLE = `${ENV.baseUrl}=https://<service host>`;
const KEY_VAR = [ENV.apiKey, '<your key>'] as const;
const BASE_URL_VAR = [ENV.baseUrl, 'https://<service host>'] as const;
const CREATE_KEY = "Create a key on the service's account screen; it is shown only once.";
/** The ways on without an account, where the key or base URL is missing. */
const NO_ACCOUNT = {
  shell:
    'No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).',
  client:
    'No account? Put "--source", "public" in this server\'s "args" for real data from the public origins with no key, or "--sandbox" for sample data.',
} as const;

/** Straight and typographic quotes: a key copied out of a document or a shell line brings them along. */
const QUOTE = /^["'`\u2018\u2019\u201c\u201d]|["'`\u2018\u2019\u201c\u201d]$/;
/** Invisible characters that trim() keeps: zero-width spaces and joiners, from pasting out of a page. */
const INVISIBLE_EDGE = /^[\p{Cf}]|[\p{Cf}]$/u;

export function checkApiKey(env: Env, audience: Audience): { apiKey?: string; error?: ConfigError } {
  let key = envValue(env, ENV.apiKey);
  if (key === undefined) {
    const where =
      audience === 'shell'
        ? `in this shell (export ${KEY_EXAMPLE})`
        : `in the MCP client's "env" for this server (e.g. ${KEY_EXAMPLE})`;
    return {
      error: new ConfigError(
        `No API key: set ${ENV.apiKey} ${where}. ${CREATE_KEY}`,
        ENV.apiKey,
        undefined,
        NO_ACCOUNT[audience],
      ),
    };
  }
  // Not a wrong key, so not "create a new one": the value around the key is what to fix.
  if (QUOTE.test(key)) {
    const fix =
      audience === 'shell'
        ? `export ${KEY_EXAMPLE}, with no quotes inside the value`
        : `"${ENV.apiKey}": "<your key>" in the client's "env", the JSON quotes only`;
    return {
      error: new ConfigError(
        `${ENV.apiKey} is wrapped in literal quotes, which the service would take as part of the key. Set the key alone: ${fix}.`,
        ENV.apiKey,
      ),
    };
  }
  if (INVISIBLE_EDGE.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} has invisible characters (zero-width spaces) around the key, which the service would take as part of it. Type or paste the key again without them.`,
        ENV.apiKey,
      ),
    };
  }
  // People paste the whole header value; the scheme is added by the client.
  key = key.replace(/^bearer\s+/i, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} holds a URL, not a key: ${ENV.apiKey} and ${ENV.baseUrl} look swapped. Put the key from the service's account screen in ${ENV.apiKey} and the service's base URL in ${ENV.baseUrl}.`,
        ENV.apiKey,
      ),
    };
  }
  if (/[\s\p{Cc}]/u.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} contains spaces or control characters; paste the key exactly as the account screen showed it.`,
        ENV.apiKey,
      ),
    };
  }
  return { apiKey: key };
}

/**
 * Spaces or a line break around an otherwise good key are removed, so the key works; but the value
 * was not what the user meant to set, and another tool reading the same variable may not trim it.
 * Said once at start, like the other ignored settings; the key itself is never quoted.
 */
export function keyWhitespaceWarning(env: Env, apiKey: string | undefined, audience: Audience): string[] {
  const raw = env[ENV.apiKey];
  if (apiKey === undefined || raw === undefined || raw === raw.trim()) return [];
  const where =
    audience === 'shell'
      ? `export ${KEY_EXAMPLE} with nothing around the key`
      : `"${ENV.apiKey}": "<your key>" in the MCP client's "env", with nothing around the key`;
  return [
    `${ENV.apiKey} had spaces or line breaks around the key; they were removed and the key is used without them. Set it as ${where}.`,
  ];
}

/** Neither setting: one message that names both, since fixing one would only reveal the other. */
export function nothingSet(audience: Audience): ConfigError {
  return new ConfigError(
    `No service address and no API key: set ${ENV.baseUrl} and ${ENV.apiKey} ${whereToSet(audience, [BASE_URL_VAR, KEY_VAR])}. The base URL comes with your account; create a key on the service's account screen (it is shown only once).`,
    ENV.baseUrl,
    '--base-url',
    NO_ACCOUNT[audience],
  );
}

export function checkBaseUrl(
  source: Source | undefined,
  apiKey: string | undefined,
  secrets: Secrets,
  audience: Audience,
): { baseUrl?: string; error?: ConfigError } {
  if (!source) {
    const example = audience === 'shell' ? `export ${BASE_URL_EXAMPLE}` : BASE_URL_EXAMPLE;
    return {
      error: new ConfigError(
        `No service address: set ${ENV.baseUrl} (or --base-url) to the service's base URL, e.g. ${example}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  // Every request line would carry it, to the service's logs and any proxy's.
  if (apiKey !== undefined && apiKey.length >= 6 && source.value.includes(apiKey)) {
    return {
      error: new ConfigError(
        `${source.origin} contains the API key. The key belongs only in ${ENV.apiKey}; set ${source.origin} to the service's base URL alone, e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  let url: URL;
  try {
    url = new URL(source.value);
  } catch {
    if (secretShapedTokens(source.value).length) {
      return {
        error: new ConfigError(
          `${source.origin} holds what looks like an API key, not a URL (not shown). Put the key in ${ENV.apiKey} and the service's base URL in ${ENV.baseUrl}, e.g. ${BASE_URL_EXAMPLE}.`,
          ENV.baseUrl,
          '--base-url',
        ),
      };
    }
    return {
      error: new ConfigError(
        `${source.origin} is not a URL: "${echoValue(source.value, secrets)}". Use the service's base URL, e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  // The path is part of what is wrong in these messages: shown, with any part that may be a key hidden.
  const shownUrl = (text: string): string =>
    echoUrl(text, secrets, { path: true }) ?? echoValue(text, secrets);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      error: new ConfigError(
        `${source.origin} must start with https://; got ${url.protocol}//.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      error: new ConfigError(
        `${source.origin} uses plain http:// for ${echoHost(url.hostname, secrets)}, which would send the API key in clear text. Use ${shownUrl(`https://${url.host}${url.pathname}`)} (plain http is allowed only for localhost, 127.0.0.0/8 and ::1).`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return {
      error: new ConfigError(
        `${source.origin} must be a plain base URL, without user info, query or fragment; e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  const path = withoutTrailingSlashes(url.pathname);
  // The hosted tool endpoint's URL, or a REST path, pasted where the base URL belongs: every
  // request would then 404. Say so now, with the base URL it most likely means.
  const endpoint = /\/api\/(mcp|v1)(\/.*)?$/.exec(path);
  if (endpoint) {
    const base = `${url.origin}${path.slice(0, endpoint.index)}`;
    return {
      error: new ConfigError(
        `${source.origin} points at ${echoUrlPath(endpoint[0], secrets)}, an endpoint of the service, not its base URL. Use ${shownUrl(base)} (model-feed-mcp adds /api/v1/…; /api/mcp is the hosted tool endpoint, for clients that connect to it directly).`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  return { baseUrl: `${url.origin}${path}` };
}

/** Looks for the key in argv: doctor warns, because argv shows in process lists and configs. */
export function argvHasKey(argv: readonly string[], apiKey: string | undefined): boolean {
  return argv.some(
    (arg) => /MODEL_FEED_API_KEY|--api-key/i.test(arg) || (apiKey !== undefined && arg.includes(apiKey)),
  );
}
