import { describe, expect, it } from 'vitest';
import { createStatusLine, renderStatus } from '../../src/watch/status.js';

describe('the status line', () => {
  it('shows last poll, cursor, delivered, next poll and calls left, without escape sequences', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    const line = renderStatus(
      {
        lastPoll: now - 2000,
        cursor: 1782856045,
        delivered: 12,
        nextPoll: now + 4000,
        callsLeft: 977,
        note: 'rate limited \x1b]0;pwned\x07\u202e',
      },
      now,
    );
    expect(line).toContain('last poll 09:59:58');
    expect(line).toContain('cursor 1782856045');
    expect(line).toContain('12 delivered');
    expect(line).toContain('next poll 10:00:04 (in 4 s)');
    expect(line).toContain('977 calls left today');
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
  });

  it('draws on a terminal, writes log lines above it, and is silent elsewhere', () => {
    const written: string[] = [];
    const tty = { isTTY: true, columns: 80, write: (text: string) => written.push(text) };
    const status = createStatusLine(tty, () => 0);
    status.update({ cursor: 5 });
    status.write('model-feed-mcp info: hello\n');
    status.stop();
    expect(written.join('')).toContain('cursor 5');
    expect(written.some((text) => text.startsWith('\r\x1b[2Kmodel-feed-mcp info: hello'))).toBe(true);
    expect(written.at(-1)).toBe('\r\x1b[2K');

    const piped: string[] = [];
    const plain = createStatusLine({ isTTY: false, write: (text: string) => piped.push(text) });
    plain.update({ cursor: 5 });
    plain.write('line\n');
    expect(piped).toEqual(['line\n']);
  });
});
