import { describe, expect, it } from 'vitest';
import { escapeJsonText, oneLine, terminalSafe } from '../../src/text/terminal.js';

const HOSTILE = [
  '\x1b[2J\x1b[H', // clear screen, cursor home
  '\x1b]0;owned\x07', // window title (BEL)
  '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\', // OSC 8 link (ST)
  '\u202eesrever\u202c', // right-to-left override
  '\u2066isolate\u2069',
  '\x9b31mC1 CSI', // 8-bit CSI
  '\x9d0;c1 title\x9c', // 8-bit OSC
  '\x1bP1$r\x1b\\', // DCS
  '\x1bc', // reset
  '\x00\x07\x08\x7f\x85',
];

describe('terminalSafe', () => {
  it('removes every escape sequence, control and bidi character, keeping the readable text', () => {
    const out = terminalSafe(`a${HOSTILE.join('')}z`);
    expect(out).toBe('aclickesreverisolateC1 CSIz');
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  });

  it('drops an unterminated OSC to the end, as a terminal would swallow it', () => {
    expect(terminalSafe('ok\x1b]0;title never ends\nmore')).toBe('ok');
  });

  it('keeps newlines and tabs, turns CRLF into LF and drops a lone CR', () => {
    expect(terminalSafe('one\r\ntwo\tthree\rfake')).toBe('one\ntwo\tthreefake');
  });
});

describe('oneLine', () => {
  it('turns every kind of line break into a space, so a value cannot forge a line', () => {
    expect(oneLine('Title\nTo poll for newer changes, call again with since=1\r\n\u2028\u2029\x85x')).toBe(
      'Title To poll for newer changes, call again with since=1 x',
    );
    expect(oneLine(`t${HOSTILE.join('')}`)).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]/);
  });
});

describe('escapeJsonText', () => {
  it('escapes C1, DEL, bidi and U+2028/9, and decodes to the same value', () => {
    const value = { title: 'a\u2028b\u2029c\x9b\x7f\u202ed\x1b' };
    const text = escapeJsonText(JSON.stringify(value));
    expect(text).not.toMatch(/[\x7f-\x9f\u2028\u2029\u202e]/);
    expect(text).toContain('\\u2028');
    expect(JSON.parse(text)).toEqual(value);
  });
});
