/**
 * The webhook sink: one POST per change, signed as Standard Webhooks says, or Slack's
 * `{"text": …}` for Slack, Mattermost and the like. A 2xx means delivered; 408, 429, 5xx, a network
 * error or the timeout is a retryable DeliveryError (with the receiver's retry-after); a redirect
 * or any other 4xx is a permanent one. The follower decides what to do about either.
 *
 * A webhook URL is itself a secret more often than not (Slack's carries its token in the path), so
 * no message, label or log shows more of it than scheme://host.
 */

import { deadline } from '../../api/abort.js';
import type { FetchLike, ResponseLike } from '../../api/http.js';
import { parseRetryAfter } from '../../api/rate-limit.js';
import { ConfigError, DeliveryError } from '../../errors.js';
import { envelopeJson } from '../../feed/envelope.js';
import { nodeCrypto } from '../../lazy-node.js';
import { isCertificateFailure, networkCodeWords } from '../../net/failure-kinds.js';
import { isLoopbackHost } from '../../net/loopback.js';
import { displayUrl, redact, secretShapedTokens, secretValues } from '../../text/redact.js';
import { oneLine } from '../../text/terminal.js';
import type { MarkedDelivery } from '../news.js';
import { markedLine } from '../news-text.js';
import { parseWebhookSecret, signWebhook } from '../webhook-signature.js';
import type { Sink } from './sink.js';

export type WebhookFormat = 'standard' | 'slack';

export interface WebhookSinkOptions {
  /** From parseWebhookUrl: http(s), no credentials, plain http only to loopback. */
  url: URL;
  /** `standard`: the envelope, signed. `slack`: `{"text": <one-line rendering>}`. */
  format: WebhookFormat;
  /** From parseWebhookSecret (MODEL_FEED_WEBHOOK_SECRET). Required for `standard`; signs `slack` too when set. */
  secret: Buffer | undefined;
  /** Built by the caller with the same proxy, CA and NO_PROXY rules as the service's. */
  fetch: FetchLike;
  /** Bounds one attempt: connecting, sending, and the receiver's answer. */
  timeoutMs: number;
  userAgent: string;
  /** @default Date.now */
  now?: () => number;
}

const FLAG = '--webhook';

/**
 * Enough of a body to quote the receiver's reason and let a keep-alive connection be reused; a
 * larger one is cut off with its connection.
 */
const MAX_BODY_BYTES = 64 * 1024;

/** The most of a receiver's body a message quotes. */
const MAX_QUOTED = 200;

/**
 * The `webhook-id` header. The delivery id when it is a plain header value, as it always is for the
 * service's ids; otherwise (control or non-ASCII characters, which no header may carry, or an
 * absurd length) a hash of it, which stays just as stable across retries.
 */
function webhookId(deliveryId: string): string {
  if (/^[\x21-\x7e]{1,256}$/.test(deliveryId)) return deliveryId;
  return `sha256_${nodeCrypto().createHash('sha256').update(deliveryId).digest('hex').slice(0, 32)}`;
}

/**
 * A change as Slack's incoming webhooks take it, its marking first (`[new]`, `[update: …]`). Slack reads `<…>` as links and mentions (`<!channel>`
 * would notify everyone) and wants `&`, `<`, `>` escaped as entities; a word joiner after `@` keeps
 * Mattermost from reading `@channel`, `@here` or `@all` in a title as a mention.
 */
function slackText(delivery: MarkedDelivery): string {
  return markedLine(delivery)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=(?:channel|here|all|everyone)\b)/gi, '@\u2060');
}

/** The URL's scheme and host, as messages may show them (credentials and paths never). */
function origin(url: URL): string {
  return displayUrl(url.href) ?? `${url.protocol}//`;
}

/**
 * The `--webhook` value as a URL to POST to: http or https, without credentials, plain http only to
 * loopback. Messages show at most scheme://host: a Slack URL's path is its token.
 */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(
      `${FLAG} is not a URL (its value is not shown: it may hold a token). Give the receiver's full address, e.g. https://hooks.example.com/model-feed.`,
      FLAG,
      FLAG,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    const scheme = /^[a-z][a-z0-9+.-]{0,9}:$/.test(url.protocol) ? ` (got ${url.protocol})` : '';
    throw new ConfigError(
      `${FLAG} must be an https:// URL${scheme}. Plain http:// is accepted only to this machine (localhost, 127.0.0.1, ::1).`,
      FLAG,
      FLAG,
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(
      `${FLAG} must not hold a user name or password (the URL is not shown). The receiver can check the signature made with MODEL_FEED_WEBHOOK_SECRET instead; or put a token in the path, as Slack does.`,
      FLAG,
      FLAG,
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      `${FLAG} must use https:// to reach ${origin(url)}: plain http would send every change, and the signature, readable by anyone on the way. Plain http:// is accepted only to this machine (localhost, 127.0.0.1, ::1).`,
      FLAG,
      FLAG,
    );
  }
  // A fragment is never sent; dropped so nothing downstream mistakes it for part of the address.
  url.hash = '';
  return url;
}

/** The sink's label for logs and the status line: `webhook https://host/…`, never the path. */
export function webhookLabel(url: URL): string {
  const bare = url.pathname === '/' && !url.search;
  return `webhook ${origin(url)}/${bare ? '' : '…'}`;
}

/** Follows an error's `cause` chain (and AggregateError's first member) to the first `code`. */
function errorCode(error: unknown): { code: string; detail: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code) return { code, detail: current.message };
    const next: unknown =
      current instanceof AggregateError && current.errors.length ? current.errors[0] : current.cause;
    if (next === undefined) break;
    current = next;
  }
  return { code: 'FETCH_FAILED', detail: current instanceof Error ? current.message : String(current) };
}

/** The body of node:http and undici responses, which must be destroyed to free their connection. */
function destroyBody(body: ResponseLike['body']): void {
  const stream = body as { destroy?: () => void; on?: (event: 'error', listener: () => void) => void } | null;
  if (typeof stream?.destroy === 'function') {
    // undici reports a body destroyed unread as an 'error': unheard, an uncaught exception.
    stream.on?.('error', () => {});
    stream.destroy();
  }
}

/**
 * Reads up to MAX_BODY_BYTES of the receiver's answer: to quote its reason, and so that its
 * connection can serve the next change. Past that, or on any failure, the body is dropped with its
 * connection. Never throws: the status has already decided the outcome.
 */
async function readBody(response: ResponseLike): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += chunk.byteLength;
      if (total > MAX_BODY_BYTES) {
        destroyBody(body);
        break;
      }
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  } catch {
    destroyBody(body);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createWebhookSink(options: WebhookSinkOptions): Sink {
  const { url, format, secret, fetch, timeoutMs, userAgent } = options;
  // The same message as for an unset MODEL_FEED_WEBHOOK_SECRET: the standard format is always signed.
  if (format === 'standard' && !secret) parseWebhookSecret(undefined);
  const now = options.now ?? Date.now;
  const label = webhookLabel(url);
  const target = url.href;
  // What a receiver's body or a socket error might echo back and no message may show: the path and
  // query (Slack's token), anything in the URL shaped like a credential, and the secret itself.
  const hidden = secretValues([
    target,
    `${url.pathname}${url.search}`,
    url.pathname,
    url.search.slice(1),
    ...secretShapedTokens(target),
    ...(secret ? [secret.toString('base64'), `whsec_${secret.toString('base64')}`] : []),
  ]);

  /** The receiver's words as a message may quote them: one line, nothing hidden, not a page long. */
  function quote(text: string): string {
    const flat = redact(oneLine(text), hidden).replace(/\s+/g, ' ').trim();
    if (!flat) return '';
    const cut =
      flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED).replace(/[\ud800-\udbff]$/, '')}…` : flat;
    return `: "${cut}"`;
  }

  function failed(status: number, headers: ResponseLike['headers'], text: string): DeliveryError {
    const said = quote(text);
    if (status === 408 || status === 429 || (status >= 500 && status <= 599)) {
      const retryAfterS = parseRetryAfter(headers.get('retry-after'), now());
      const after = retryAfterS === undefined ? '' : ` It asked for a retry after ${retryAfterS} s.`;
      return new DeliveryError(
        `${label} answered HTTP ${status}${said}.${after}`,
        false,
        retryAfterS === undefined ? undefined : retryAfterS * 1000,
      );
    }
    return new DeliveryError(
      `${label} refused the change: HTTP ${status}${said}. ${hint(status, headers)}`,
      true,
    );
  }

  function hint(status: number, headers: ResponseLike['headers']): string {
    if (status >= 300 && status <= 399) {
      let to = '';
      try {
        const location = headers.get('location');
        if (location) to = ` to ${origin(new URL(location, target))}`;
      } catch {
        // An unreadable Location: the advice stands without it.
      }
      return `It redirects${to}, and webhooks do not follow redirects: set ${FLAG} to the final address.`;
    }
    if (status === 401 || status === 403) {
      return format === 'standard'
        ? `Check that the receiver verifies with the same secret as MODEL_FEED_WEBHOOK_SECRET, and that ${FLAG} is right.`
        : `Check ${FLAG}: the receiver does not accept this address or token.`;
    }
    if (status === 404 || status === 410) {
      return `Check ${FLAG}: nothing there takes these changes${status === 410 ? ' any more' : ''}.`;
    }
    if (format === 'standard' && (status === 400 || status === 415 || status === 422)) {
      return 'It did not accept the body: if it expects Slack\'s {"text": …}, add --webhook-format slack.';
    }
    return 'Sending it again would get the same answer.';
  }

  function unreachable(error: unknown, timedOut: boolean): DeliveryError {
    if (timedOut) return new DeliveryError(`${label} did not answer within ${timeoutMs} ms.`, false);
    const { code, detail } = errorCode(error);
    const words = networkCodeWords(code) ?? redact(oneLine(detail), hidden).slice(0, MAX_QUOTED);
    const ca = isCertificateFailure(code)
      ? " If a proxy or TLS inspection re-signs traffic with a private CA, set NODE_EXTRA_CA_CERTS to that CA's certificate (PEM file)."
      : '';
    return new DeliveryError(`Could not reach ${label}: ${words} (${code}).${ca}`, false);
  }

  return {
    label,
    async deliver(delivery: MarkedDelivery, signal: AbortSignal): Promise<void> {
      if (signal.aborted) throw signal.reason;
      const body =
        format === 'slack' ? JSON.stringify({ text: slackText(delivery) }) : envelopeJson(delivery.envelope);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': userAgent,
      };
      if (secret) {
        // The id stays the same across retries (the receiver's idempotency key); the timestamp and
        // so the signature are new for each attempt, as the specification asks.
        const id = webhookId(delivery.envelope.deliveryId);
        const timestamp = Math.floor(now() / 1000);
        headers['webhook-id'] = id;
        headers['webhook-timestamp'] = String(timestamp);
        headers['webhook-signature'] = signWebhook(secret, id, timestamp, body);
      }
      // One timer for the whole attempt, the answer's body included; released as soon as it settles.
      const attempt = deadline(signal, timeoutMs);
      try {
        let response: ResponseLike;
        try {
          response = await fetch(target, {
            method: 'POST',
            headers,
            body,
            redirect: 'manual',
            signal: attempt.signal,
          });
        } catch (error) {
          // Shutdown: not a failed delivery; the change is delivered again on the next run.
          if (signal.aborted) throw signal.reason;
          throw unreachable(error, attempt.timedOut());
        }
        const text = await readBody(response);
        if (response.status >= 200 && response.status <= 299) return;
        // Delivered or not, the receiver has answered: a shutdown now changes nothing about it.
        throw failed(response.status, response.headers, text);
      } finally {
        attempt.dispose();
      }
    },
    flush: async () => {},
    close: async () => {},
  };
}
