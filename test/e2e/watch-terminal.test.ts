/**
 * `watch` for a person (issue 22): text lines on a terminal under the status line, and a log that
 * says what each poll did when no one watches the status line (systemd). The built CLI against a sandbox, over real sockets, on a
 * real pseudo-terminal where a terminal is the point.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { changeLine } from '../../src/text/change-line.js';
import { spawnPty } from '../support/pty.js';
import { BIN, eventually, NODE, run, spawnRaw } from './harness.js';
import { envelopes, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const CLEAR_LINE = '\r\x1b[2K';

/**
 * The rows a terminal of `columns` shows after `output`: printable characters, carriage return,
 * line feed, erase-line and the wrap at the right margin, which is all the watcher may write. Any
 * other control or escape sequence fails the test: it would be something acting on the terminal.
 */
function screen(output: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  for (let i = 0; i < output.length; i++) {
    const c = output[i] as string;
    if (output.startsWith('\x1b[2K', i)) {
      rows[row] = [];
      i += 3;
    } else if (c === '\r') column = 0;
    else if (c === '\n') {
      row++;
      rows[row] ??= [];
    } else if (/[\x00-\x1f\x7f-\x9f]/.test(c)) {
      throw new Error(`the terminal was sent ${JSON.stringify(output.slice(i, i + 10))}`);
    } else {
      if (column === columns) {
        // A character past the last column wraps onto the next row.
        row++;
        rows[row] ??= [];
        column = 0;
      }
      const cells = rows[row] as string[];
      while (cells.length < column) cells.push(' ');
      cells[column++] = c;
    }
  }
  return rows.map((cells) => cells.join(''));
}

describe('watch on a terminal (--format text by default)', () => {
  it('shows a new change as one readable line above the status line, which shows the saved cursor from the start', async () => {
    const state = join(tempDir(), 'state.json');
    // A cursor saved by an earlier run: the status line shows it before the first poll.
    const earlier = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(earlier.code, earlier.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(state, 'utf8')).cursor as number;

    const columns = 100;
    const pty = spawnPty([NODE, BIN, 'watch', '--state', state, '--interval', '1'], {
      env: watchEnv(sandbox),
      columns,
    });
    try {
      await pty.waitFor(/next poll \d\d:\d\d:\d\d/);
      const firstStatus = pty.output().slice(pty.output().indexOf('watch: '));
      expect(firstStatus).toMatch(new RegExp(`^watch: last poll [-\\d:]+ · cursor ${saved} · 0 delivered`));
      expect(pty.output()).not.toContain('cursor -');
      expect(pty.output()).toContain('delivering to stdout as text (--format json for JSON lines)');

      const event = sandbox.publish('price_change');
      // The sandbox has a type of its own for the event; its JSON is what the watcher reads.
      const expected = changeLine(event as unknown as Parameters<typeof changeLine>[0]);
      // The line is written, then the status line drawn again under it, with the new cursor.
      const at = (await pty.waitFor(`${expected}\r\n`, { timeoutMs: 15_000 })).indexOf(expected);
      await pty.waitFor(/watch: last poll \d\d:\d\d:\d\d · cursor \d+ · 1 delivered · next poll/, {
        from: at,
      });
      const output = pty.output();
      // Cleared from the status line's start before the change line: it never runs into it.
      expect(output.slice(at - CLEAR_LINE.length, at)).toBe(CLEAR_LINE);

      const rows = screen(output, columns);
      while (rows.at(-1) === '') rows.pop();
      const status = rows.at(-1) as string;
      expect(status).toMatch(/^watch: last poll \d\d:\d\d:\d\d · cursor \d+ · 1 delivered · next poll /);
      expect(status.length).toBeLessThan(columns);
      // Right above it, the change: its own rows (it wraps at the margin), nothing else in them.
      const height = Math.ceil(expected.length / columns);
      const above = rows.slice(-1 - height, -1);
      expect(above.join('')).toBe(expected);
      expect(rows.at(-2 - height)).not.toContain(expected.slice(0, 20));
      expect(expected).not.toContain('{');
    } finally {
      await pty.close();
    }
  }, 40_000);
});

describe('watch --format', () => {
  it('text gives the lines list_model_changes gives; json (the default through a pipe) the envelope, unchanged', async () => {
    const dir = tempDir();
    const text = await runWatch(
      ['--once', '--since', '0', '--format', 'text', '--state', join(dir, 'a.json')],
      watchEnv(sandbox),
    );
    expect(text.code, text.stderr).toBe(0);
    const listed = await run(
      ['call', 'list_model_changes', '--since', '0', '--limit', '100'],
      watchEnv(sandbox),
    );
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout
      .split('\n')
      .filter((line) => line.startsWith('- '))
      .map((line) => line.slice(2));
    expect(lines.length).toBeGreaterThan(40);
    expect(text.stdout.split('\n').slice(0, lines.length)).toEqual(lines);

    // Through a pipe the default stays JSON, byte for byte what --format json writes.
    const withoutTime = (out: string) => out.replace(/"timestamp":"[^"]+"/g, '"timestamp":"T"');
    const byDefault = await runWatch(
      ['--once', '--since', '0', '--state', join(dir, 'b.json')],
      watchEnv(sandbox),
    );
    const json = await runWatch(
      ['--once', '--since', '0', '--format', 'json', '--state', join(dir, 'c.json')],
      watchEnv(sandbox),
    );
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(envelopes(byDefault.stdout).length).toBeGreaterThan(40);
    expect(withoutTime(json.stdout)).toBe(withoutTime(byDefault.stdout));
    expect(byDefault.stderr).toContain('info: delivering to stdout, once');
  });

  it('applies to stdout only', async () => {
    const out = await runWatch(['--once', '--format', 'text', '--jsonl', 'x.jsonl'], watchEnv(sandbox));
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'model-feed-mcp: --format applies only to stdout; --jsonl gets the JSON envelope.\n',
    );
  });
});

describe('watch without a terminal (systemd): the log at info', () => {
  it('has a line per poll that delivered, with how many and the cursor; an idle poll shows only at debug', async () => {
    const state = join(tempDir(), 'state.json');
    const watcher = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--since',
      '0',
      '--interval',
      '1',
      '--state',
      state,
    ]);
    try {
      const cursor = () => JSON.parse(readFileSync(state, 'utf8')).cursor as number;
      await eventually(() => watcher.stderr().includes('info: delivered '), 'the backlog to be delivered');
      const backlog = envelopes(watcher.stdout()).length;
      expect(watcher.stderr()).toContain(
        `model-feed-mcp info: delivered ${backlog} new changes to stdout; cursor ${cursor()} saved\n`,
      );
      sandbox.publish('new_model');
      await eventually(() => envelopes(watcher.stdout()).length === backlog + 1, 'the new change', 15_000);
      await eventually(
        () => watcher.stderr().includes(`delivered 1 new change to stdout; cursor ${cursor()} saved\n`),
        'its log line',
      );
      // Idle polls meanwhile and after: not a line at info.
      const requests = sandbox.requests.length;
      await eventually(() => sandbox.requests.length >= requests + 2, 'two idle polls', 10_000);
      const lines = watcher.stderr().trimEnd().split('\n');
      expect(lines.filter((line) => line.includes('delivered'))).toHaveLength(2);
      expect(watcher.stderr()).not.toContain('nothing new');
      expect(lines.every((line) => line.startsWith('model-feed-mcp info: '))).toBe(true);
    } finally {
      watcher.child.kill('SIGTERM');
      await watcher.exited;
    }

    const debug = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--interval',
      '1',
      '--log-level',
      'debug',
      '--state',
      state,
    ]);
    try {
      await eventually(
        () => /model-feed-mcp debug: polled: nothing new after change time \d+\n/.test(debug.stderr()),
        'an idle poll at debug',
      );
    } finally {
      debug.child.kill('SIGTERM');
      await debug.exited;
    }
  }, 40_000);
});
