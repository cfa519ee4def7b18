import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { redact } from '../../src/text/redact.js';

const KEY = 'mfsk_live_0123456789abcdef';

function capture(level: 'debug' | 'warn', format: 'text' | 'json') {
  const lines: string[] = [];
  const log = createLogger({
    level,
    format,
    secrets: [KEY],
    write: (l) => lines.push(l),
    now: () => new Date(0),
  });
  return { log, lines };
}

describe('logger', () => {
  it('filters by level', () => {
    const { log, lines } = capture('warn', 'text');
    log.debug('hidden');
    log.info('hidden');
    log.warn('shown', { n: 1 });
    expect(lines).toEqual(['model-feed-mcp warn: shown n=1\n']);
  });

  it('writes JSON lines', () => {
    const { log, lines } = capture('debug', 'json');
    log.debug('hello', { path: '/x' });
    expect(JSON.parse(lines[0]!)).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'debug',
      msg: 'hello',
      path: '/x',
    });
  });

  it('redacts the key, bearer tokens and URL passwords everywhere, in both formats', () => {
    for (const format of ['text', 'json'] as const) {
      const { log, lines } = capture('debug', format);
      log.debug(`key ${KEY}`, {
        header: `Bearer ${KEY}`,
        nested: { k: KEY },
        proxy: 'http://bob:hunter2@proxy:3128',
      });
      const out = lines.join('');
      expect(out).not.toContain(KEY);
      expect(out).not.toContain('hunter2');
      expect(out).toContain('[redacted]');
    }
  });

  it('redacts any bearer token, even one it was not told about', () => {
    expect(redact('authorization: Bearer abc.def', [])).toBe('authorization: Bearer [redacted]');
  });
});

describe('logger redaction that cannot be slipped past', () => {
  it('finds a key holding a quote or backslash in JSON lines, where it is escaped', () => {
    const key = 'abc"def\\ghi123456';
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', format: 'json', secrets: [key], write: (l) => lines.push(l) });
    log.info('x', { value: `before ${key} after` });
    expect(lines[0]).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(JSON.parse(lines[0]!).value).toBe('before [redacted] after');
  });

  it('hides a key that an escape sequence split in two, once the sequence is stripped', () => {
    const key = 'mfsk_live_0123456789abcdef';
    const split = `${key.slice(0, 9)}\x1b[0m${key.slice(9)}`;
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = [];
      const log = createLogger({ level: 'debug', format, secrets: [key], write: (l) => lines.push(l) });
      log.warn(`said ${split}`);
      expect(lines[0]).not.toContain(key);
    }
  });
});
