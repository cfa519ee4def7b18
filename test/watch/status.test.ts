import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { changeLine } from '../../src/text/change-line.js';
import { parseWatchFlags } from '../../src/watch/options.js';
import { createStdoutSink } from '../../src/watch/sinks/stdout.js';
import { createStatusLine, renderStatus } from '../../src/watch/status.js';
import { changeEvent } from '../fixtures.js';
import { newDelivery } from './marked.js';

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

  it("with --uses, says how many of this run's changes concern the code", () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    const fields = {
      lastPoll: now,
      cursor: 5,
      delivered: 5,
      nextPoll: undefined,
      callsLeft: undefined,
      note: undefined,
    };
    expect(renderStatus({ ...fields, concerning: '5 of 53 concern your code' }, now)).toBe(
      'watch: last poll 10:00:00 · cursor 5 · 5 delivered · 5 of 53 concern your code',
    );
    expect(renderStatus(fields, now)).not.toContain('concern');
  });

  it('stays one line whatever the note quotes: no line break of any kind', () => {
    const line = renderStatus(
      {
        lastPoll: undefined,
        cursor: 1,
        delivered: 0,
        nextPoll: undefined,
        callsLeft: undefined,
        note: 'service said "down\nmodel-feed-mcp error: forged\u2028forged too\u2029\r"',
      },
      0,
    );
    expect(line).not.toMatch(/[\n\r\u2028\u2029\x85]/);
    expect(line).toContain('down model-feed-mcp error: forged forged too');
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

    // Stopped: a late line (a sink closing) goes out alone; nothing is drawn under the prompt.
    written.length = 0;
    status.write('model-feed-mcp info: closed\n');
    status.aside(() => written.push('aside\n'));
    status.update({ cursor: 6 });
    expect(written).toEqual(['model-feed-mcp info: closed\n', 'aside\n']);

    const piped: string[] = [];
    const plain = createStatusLine({ isTTY: false, write: (text: string) => piped.push(text) });
    plain.update({ cursor: 5 });
    plain.write('line\n');
    expect(piped).toEqual(['line\n']);
  });
});

describe('the status line with change lines on the same terminal', () => {
  const CLEAR = '\r\x1b[2K';

  /** stdout and stderr as one terminal: every write, tagged with its stream, in the order made. */
  function terminal() {
    const writes: { to: 'stdout' | 'stderr'; text: string }[] = [];
    const stderr = {
      isTTY: true,
      columns: 200,
      write: (text: string) => writes.push({ to: 'stderr', text }),
    };
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push({ to: 'stdout', text: chunk.toString() });
        done();
      },
    });
    return { writes, stderr, stdout };
  }

  it('clears the status line before each change line and draws it again after', async () => {
    const { writes, stderr, stdout } = terminal();
    const status = createStatusLine(stderr, () => 0);
    const sink = createStdoutSink(stdout, status);
    status.update({ cursor: 7 });
    const event = changeEvent({ id: 'e1' });
    const delivery = newDelivery(event, event as never, new Date(0));
    await sink.deliver(delivery, new AbortController().signal);
    status.stop();

    const shape = writes.map((w) => (w.to === 'stdout' ? 'line' : w.text === CLEAR ? 'clear' : 'status'));
    expect(shape).toEqual(['status', 'clear', 'line', 'status', 'clear']);
    // The status is drawn from the start of a fresh line, and only the change line reaches stdout.
    expect(writes[3]?.text.startsWith(`${CLEAR}watch: `)).toBe(true);
    const out = writes.filter((w) => w.to === 'stdout').map((w) => w.text);
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0] ?? '').data).toEqual(event);
    expect(out[0]?.endsWith('\n')).toBe(true);
  });

  it('writes change lines alone when stdout is not the status line’s terminal', async () => {
    const { writes, stderr, stdout } = terminal();
    const status = createStatusLine(stderr, () => 0);
    const sink = createStdoutSink(stdout);
    status.update({ cursor: 7 });
    const event = changeEvent({ id: 'e1' });
    await sink.deliver(newDelivery(event, event as never, new Date(0)), new AbortController().signal);
    status.stop();
    expect(writes.map((w) => w.to)).toEqual(['stderr', 'stdout', 'stderr']);
  });
});

describe('the text format (--format text)', () => {
  function collect() {
    const out: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out.push(chunk.toString());
        done();
      },
    });
    return { out, stream };
  }

  it('writes one line per change: the line list_model_changes gives, terminal-safe', async () => {
    const { out, stream } = collect();
    const sink = createStdoutSink(stream, undefined, 'text');
    const event = changeEvent({
      id: 'e1',
      // Upstream text that would act on a terminal or forge a line of its own.
      title: 'Price cut\x1b]0;pwned\x07\x1b[2J\nmodel-feed-mcp error: forged\u2028\u202eevil',
      beforeValue: '$5',
      afterValue: '$2',
    });
    await sink.deliver(newDelivery(event, event as never, new Date(0)), new AbortController().signal);
    expect(out).toHaveLength(1);
    const line = out[0] as string;
    expect(line).toBe(`[new] ${changeLine(event as never)}\n`);
    expect(line).toMatch(
      /^\[new\] \d{4}-\d\d-\d\d \w+ \| .* \| Price cut model-feed-mcp error: forged evil \| \$5 → \$2 \| /,
    );
    expect(line.slice(0, -1)).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]/);
  });

  it('is chosen by --format for stdout only; absent, it is left to the terminal', () => {
    const context = { cwd: '/work', env: {}, secrets: [] };
    expect(parseWatchFlags({ format: 'text' }, context).sink).toEqual({ kind: 'stdout', format: 'text' });
    expect(parseWatchFlags({ format: 'json' }, context).sink).toEqual({ kind: 'stdout', format: 'json' });
    expect(parseWatchFlags({}, context).sink).toEqual({ kind: 'stdout' });
    expect(() => parseWatchFlags({ format: 'text', jsonl: 'x.jsonl' }, context)).toThrow(
      '--format applies only to stdout; --jsonl gets the JSON envelope.',
    );
    expect(() => parseWatchFlags({ format: 'yaml' }, context)).toThrow(
      '--format must be text or json; got "yaml".',
    );
  });
});
