/**
 * Whether an answer typed at setup's prompts can be used, judged where it is typed: a refusal says
 * what was typed (terminal-safe, nothing key-shaped shown) and what is wrong with it, and may offer
 * the answer most likely meant, which Enter then takes. The rules are the configuration's
 * (config.ts `checkBaseUrl`, `checkApiKey`; a test holds the two together), in words for a person
 * answering a question rather than for one who set a flag or a variable. Pure.
 */

import { isLoopbackHost } from '../net/loopback.js';
import { echoValue, secretShapedTokens } from '../text/redact.js';

/** An answer refused, why (one or two sentences), and the answer it probably meant, if any. */
export interface Refusal {
  problem: string;
  offer?: string;
  /** How to answer again, said only when another answer will be taken. */
  again?: string;
}

export type Verdict<T> = { value: T } | Refusal;

/** What was typed, as a message may quote it: no control character, nothing shaped like a key. */
export function shownAnswer(typed: string): string {
  return `"${echoValue(typed, [])}"`;
}

/** Control characters: an arrow key or Escape in a line read without editing arrives as these. */
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LOOPBACK_NOTE = 'localhost, 127.0.0.0/8 and ::1';

/** Longer than any base URL a service would hand out; a longer answer is a paste gone wrong. */
const MAX_BASE_URL = 2_048;

/** One pair of quote marks around the whole answer, as copied from a JSON or .env file. */
const QUOTED = /^(["'`\u2018\u201c])(.*)(["'`\u2019\u201d])$/s;

/** What a terminal in bracketed-paste mode sends around a paste (setup does not turn that mode on). */
/** The markers a terminal in bracketed-paste mode puts around what is pasted. */
export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** Each opening quote mark with the closing one that pairs with it. */
const CLOSING_QUOTE: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '`': '`',
  '\u2018': '\u2019',
  '\u201c': '\u201d',
};

/** Shorter than this, a token with no dot, colon or slash is a host name (`localhost`, `feedbox`). */
const MIN_KEY_LIKE = 12;

/**
 * Whether an answer without a scheme is more likely a key than a host: by its form, whatever its
 * characters (keys come in many alphabets), one long token with nothing a URL is made of: no dot,
 * colon or slash. A name of this machine is a host whatever its length.
 */
function looksLikeKey(text: string): boolean {
  if (secretShapedTokens(text).length) return true;
  return text.length >= MIN_KEY_LIKE && !/[\s.:/]/.test(text) && !isLoopbackHost(text);
}

/**
 * A base URL typed at the prompt. Without a scheme, the same text with https:// is offered, or
 * with http:// when the host is this machine (the only place plain http may carry the key).
 */
export function checkTypedBaseUrl(typed: string): Verdict<string> {
  if (typed.startsWith(PASTE_START) && typed.endsWith(PASTE_END)) {
    return checkTypedBaseUrl(typed.slice(PASTE_START.length, -PASTE_END.length).trim());
  }
  const shown = shownAnswer(typed);
  if (typed === '') return { problem: 'No base URL typed: it comes with your account.' };
  if (typed.length > MAX_BASE_URL) {
    return {
      problem: `That answer is ${typed.length.toLocaleString('en-US')} characters long, more than a base URL can be (${MAX_BASE_URL.toLocaleString('en-US')}): type the base URL alone.`,
    };
  }
  const quoted = QUOTED.exec(typed);
  const unquoted = quoted?.[2];
  // A matching pair is how JSON, .env files and shells write a URL: taken as the URL inside.
  if (quoted && unquoted !== undefined && CLOSING_QUOTE[quoted[1]!] === quoted[3]) {
    return checkTypedBaseUrl(unquoted);
  }
  // A key typed one question early: never shown, never offered back as a host name.
  if (!SCHEME.test(unquoted ?? typed) && looksLikeKey(unquoted ?? typed)) {
    return {
      problem: `That looks like an API key, not a URL (not shown). The base URL comes first (https://<service host>); the key is asked next.`,
    };
  }
  if (unquoted !== undefined) {
    return {
      problem: `${shownAnswer(unquoted)} has quote marks around it, which a URL does not.`,
      offer: meant(unquoted),
    };
  }
  if (CONTROL.test(typed)) {
    return {
      problem: `${shown} has control characters in it (an arrow key or Escape?): type the URL again without them.`,
    };
  }
  if (!SCHEME.test(typed)) {
    const host = hostOf(`https://${typed}`);
    if (host === undefined) return { problem: `${shown} is not a URL.` };
    const loopback = isLoopbackHost(host);
    return {
      problem: `${shown} has no scheme: a base URL starts with https://${loopback ? `, or http:// on this machine (${LOOPBACK_NOTE})` : ''}.`,
      offer: meant(`${loopback ? 'http' : 'https'}://${typed}`),
    };
  }
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    return { problem: `${shown} is not a URL.` };
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `${shown} is not an http:// or https:// address.` };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      problem: `${shown} uses plain http://, which would send the key in clear text; plain http is only for ${LOOPBACK_NOTE}.`,
      offer: meant(`https://${url.host}${path}`),
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return {
      problem: `${shown} has a user name, a query or a fragment, which a base URL does not.`,
      offer: meant(`${url.origin}${path}`),
    };
  }
  // The hosted tool endpoint, or a REST path, pasted where the base URL belongs: every request
  // would then 404.
  const endpoint = /\/api\/(mcp|v1)(\/.*)?$/.exec(path);
  if (endpoint) {
    return {
      problem: `${shown} is an endpoint of the service (${echoValue(endpoint[0], [])}), not its base URL.`,
      offer: `${url.origin}${path.slice(0, endpoint.index)}`,
    };
  }
  return { value: `${url.origin}${path}` };
}

/** The base URL `text` stands for: itself once accepted, else what its refusal offers. */
function meant(text: string): string | undefined {
  const verdict = checkTypedBaseUrl(text);
  return 'value' in verdict ? verdict.value : verdict.offer;
}

function hostOf(text: string): string | undefined {
  try {
    return new URL(text).hostname || undefined;
  } catch {
    return undefined;
  }
}

const QUOTE = /^["'`\u2018\u2019\u201c\u201d]|["'`\u2018\u2019\u201c\u201d]$/;
const INVISIBLE_EDGE = /^[\p{Cf}]|[\p{Cf}]$/u;

/**
 * What is wrong with a key typed (with no echo) at the prompt, or undefined when nothing is. The
 * key itself is never quoted back. An empty answer is the caller's business.
 */
export function typedKeyProblem(typed: string): string | undefined {
  if (QUOTE.test(typed)) {
    return 'The key you typed (not shown) starts or ends with a quote mark, which the service would take as part of the key: type the key alone.';
  }
  if (INVISIBLE_EDGE.test(typed)) {
    return 'The key you typed (not shown) has invisible characters (zero-width spaces) at an end: paste it again without them.';
  }
  if (SCHEME.test(typed.replace(/^bearer\s+/i, ''))) {
    return "What you typed is a URL, not a key (not shown): type the key from the service's account screen.";
  }
  if (/[\s\p{Cc}]/u.test(typed.replace(/^bearer\s+/i, ''))) {
    return 'The key you typed (not shown) contains spaces or control characters: paste it exactly as the account screen showed it.';
  }
  return undefined;
}
