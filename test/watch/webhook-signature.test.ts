import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseWebhookSecret, signWebhook } from '../../src/watch/webhook-signature.js';

// The published test vector of the Standard Webhooks reference libraries ("sign function works" in
// standard-webhooks/libraries/javascript/src/webhook.test.ts, the same in every language).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

function configError(raw: string | undefined): ConfigError {
  try {
    parseWebhookSecret(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('signWebhook', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    const secret = parseWebhookSecret(VECTOR.secret);
    expect(signWebhook(secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it('signs id, timestamp and body: changing any one changes the signature', () => {
    const secret = parseWebhookSecret(VECTOR.secret);
    const base = signWebhook(secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload);
    expect(signWebhook(secret, 'msg_other', VECTOR.timestamp, VECTOR.payload)).not.toBe(base);
    expect(signWebhook(secret, VECTOR.id, VECTOR.timestamp + 1, VECTOR.payload)).not.toBe(base);
    expect(signWebhook(secret, VECTOR.id, VECTOR.timestamp, '{"test": 2432232315}')).not.toBe(base);
  });

  it('signs the UTF-8 bytes of a body outside ASCII', () => {
    const secret = parseWebhookSecret(VECTOR.secret);
    const body = '{"title":"Ünïcødé — 模型 🚀"}';
    const expected = createHmac('sha256', secret)
      .update(Buffer.from(`${VECTOR.id}.${VECTOR.timestamp}.${body}`, 'utf8'))
      .digest('base64');
    expect(signWebhook(secret, VECTOR.id, VECTOR.timestamp, body)).toBe(`v1,${expected}`);
  });

  it('refuses a timestamp that is not whole seconds', () => {
    const secret = parseWebhookSecret(VECTOR.secret);
    expect(() => signWebhook(secret, VECTOR.id, 1614265330.5, VECTOR.payload)).toThrow(RangeError);
    expect(() => signWebhook(secret, VECTOR.id, Number.NaN, VECTOR.payload)).toThrow(RangeError);
  });
});

describe('parseWebhookSecret', () => {
  it('decodes the whsec_ form to the key bytes', () => {
    const secret = parseWebhookSecret(VECTOR.secret);
    expect(secret).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
    expect(secret.length).toBe(24);
  });

  it('ignores whitespace around a pasted value', () => {
    expect(parseWebhookSecret(`  ${VECTOR.secret}\n`)).toEqual(parseWebhookSecret(VECTOR.secret));
  });

  it('accepts 64 bytes with padding', () => {
    const raw = Buffer.alloc(64, 7).toString('base64');
    expect(raw.endsWith('=')).toBe(true);
    expect(parseWebhookSecret(`whsec_${raw}`).length).toBe(64);
  });

  it('names the variable and says what to do when it is unset or empty', () => {
    for (const raw of [undefined, '', '   ']) {
      const error = configError(raw);
      expect(error.setting).toBe('MODEL_FEED_WEBHOOK_SECRET');
      expect(error.message).toMatch(/^No webhook secret: set MODEL_FEED_WEBHOOK_SECRET/);
      expect(error.message).toContain('openssl rand -base64 32');
    }
  });

  // Each value is a plausible mistake; none may be echoed, nor any long part of it.
  const BAD: [string, string, RegExp][] = [
    [
      'the base64 alone, without whsec_',
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      /must be in the Standard Webhooks form/,
    ],
    [
      'another service’s prefix',
      'sk_live_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      /must be in the Standard Webhooks form/,
    ],
    ['not base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!aSw', /must be standard base64/],
    ['base64url', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La-_Sw', /must be standard base64/],
    ['missing padding', `whsec_${Buffer.alloc(25, 1).toString('base64').replace(/=+$/, '')}`, /base64/],
    ['a space inside', 'whsec_MfKQ9r8GKYqr TwjUPD8ILPZIo2LaLaSw', /must be standard base64/],
    ['too short (18 bytes)', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZI', /decodes to 18 bytes; .* 24 to 64/],
    ['too long (72 bytes)', `whsec_${Buffer.alloc(72, 9).toString('base64')}`, /decodes to 72 bytes/],
  ];
  it.each(BAD)('refuses %s without echoing it', (_name, raw, message) => {
    const error = configError(raw);
    expect(error.setting).toBe('MODEL_FEED_WEBHOOK_SECRET');
    expect(error.message).toMatch(message);
    expect(error.message).toContain('MODEL_FEED_WEBHOOK_SECRET');
    const body = raw.replace(/^whsec_/, '');
    for (let i = 0; i + 8 <= body.length; i++) expect(error.message).not.toContain(body.slice(i, i + 8));
  });
});
