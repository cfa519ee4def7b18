/**
 * Signing as the Standard Webhooks specification says: HMAC-SHA256 over `{id}.{timestamp}.{body}`
 * with the shared secret, sent as `v1,<base64>` in `webhook-signature`. A receiver then verifies
 * with any of its reference libraries. Pure.
 *
 * Twenty lines of our own rather than the `standardwebhooks` package: node:crypto already has the
 * HMAC, and the package would add its base64 and SHA-256 dependencies to the bundle for it.
 */

import { ConfigError } from '../errors.js';
import { nodeCrypto } from '../lazy-node.js';

export const WEBHOOK_SECRET_ENV = 'MODEL_FEED_WEBHOOK_SECRET';

const PREFIX = 'whsec_';

/** The specification asks for 24 to 64 random bytes (192 to 512 bits). */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/**
 * Standard base64 with its padding: what the reference libraries decode. A lenient decoder here
 * would sign with a key the receiver's library reads differently, or refuses.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const HOW_TO_MAKE_ONE = `Make one with: echo "whsec_$(openssl rand -base64 32)", and give the receiver the same value.`;

/**
 * The signing secret from MODEL_FEED_WEBHOOK_SECRET, in its `whsec_<base64>` form, as its bytes.
 * Surrounding whitespace (a pasted newline) is ignored. The messages never show the value.
 */
export function parseWebhookSecret(raw: string | undefined): Buffer {
  const value = raw?.trim();
  if (!value) {
    throw new ConfigError(
      `No webhook secret: set ${WEBHOOK_SECRET_ENV} to the signing secret the receiver verifies with, in its whsec_… form (Standard Webhooks). ${HOW_TO_MAKE_ONE}`,
      WEBHOOK_SECRET_ENV,
    );
  }
  if (!value.startsWith(PREFIX)) {
    throw new ConfigError(
      `${WEBHOOK_SECRET_ENV} must be in the Standard Webhooks form: whsec_ followed by the secret in base64 (its value is not shown). If the receiver gave you the base64 alone, put whsec_ in front of it. ${HOW_TO_MAKE_ONE}`,
      WEBHOOK_SECRET_ENV,
    );
  }
  const encoded = value.slice(PREFIX.length);
  if (!BASE64.test(encoded)) {
    throw new ConfigError(
      `${WEBHOOK_SECRET_ENV} is not valid: after whsec_ it must be standard base64 (A–Z, a–z, 0–9, + and /, with = padding), which it is not (its value is not shown). ${HOW_TO_MAKE_ONE}`,
      WEBHOOK_SECRET_ENV,
    );
  }
  const secret = Buffer.from(encoded, 'base64');
  if (secret.length < MIN_SECRET_BYTES || secret.length > MAX_SECRET_BYTES) {
    throw new ConfigError(
      `${WEBHOOK_SECRET_ENV} decodes to ${secret.length} bytes; Standard Webhooks secrets are ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes (its value is not shown). ${HOW_TO_MAKE_ONE}`,
      WEBHOOK_SECRET_ENV,
    );
  }
  return secret;
}

/**
 * The `webhook-signature` value for one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`. `body` must be the exact text sent: a receiver verifies the raw bytes.
 */
export function signWebhook(secret: Buffer, id: string, timestampSec: number, body: string): string {
  if (!Number.isSafeInteger(timestampSec)) {
    throw new RangeError(`a webhook timestamp is whole seconds since the epoch, not ${timestampSec}`);
  }
  const mac = nodeCrypto()
    .createHmac('sha256', secret)
    .update(`${id}.${timestampSec}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}
