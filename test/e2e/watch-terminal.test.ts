/**
 * `watch` for a person: text lines on a terminal under the status line, a log that says what each
 * poll did when no one watches the status line (systemd), and a saved cursor that never silently
 * overrides --since. The built CLI against a sandbox, over real sockets, on a real pseudo-terminal
 * where a terminal is the point.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { changeLine } from '../../src/text/change-line.js';
import { spawnPty } from '../support/pty.js';
import { BIN, eventually, NODE, run, scrubbedEnv, spawnRaw } from './harness.js';
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
      // The sandbox has a type of its own for the event; its JSON is what the watcher reads. The
      // line is marked new: this watcher never delivered it.
      const expected = `[new] ${changeLine(event as unknown as Parameters<typeof changeLine>[0])}`;
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
    // Each after its marking: all new, as nothing was delivered with this state file before.
    expect(text.stdout.split('\n').slice(0, lines.length)).toEqual(lines.map((line) => `[new] ${line}`));

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

describe('watch with a saved cursor', () => {
  it('says at start that --since is not used, naming the state file; --reset starts from it, keeping a backup', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const first = await runWatch(['--once', '--since', '0', '--state', state], watchEnv(sandbox));
    expect(first.code, first.stderr).toBe(0);
    const all = envelopes(first.stdout).length;
    expect(all).toBeGreaterThan(40);
    const saved = readFileSync(state, 'utf8');

    const ignored = await runWatch(['--once', '--since', '0', '--state', state], watchEnv(sandbox));
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.stdout).toBe('');
    expect(ignored.stderr).toContain(
      `model-feed-mcp warn: --since 0 is not used: a cursor is saved in ${state}, and the watcher carries on from it. To start from --since instead, add --reset (the state file is kept as a backup).\n`,
    );
    // No --since given: carrying on is what was asked.
    const plain = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(plain.stderr).not.toContain('is not used');

    const reset = await runWatch(['--once', '--since', '0', '--reset', '--state', state], watchEnv(sandbox));
    expect(reset.code, reset.stderr).toBe(0);
    expect(envelopes(reset.stdout)).toHaveLength(all);
    const backup = reset.stderr.match(
      /info: --reset: the saved state is kept as (\S+); starting from --since\n/,
    )?.[1];
    expect(backup).toMatch(new RegExp(`^${state.replace(/[.]/g, '\\.')}\\.\\d{8}T\\d{6}Z\\.bak$`));
    expect(readFileSync(backup as string, 'utf8')).toBe(saved);
    expect(readdirSync(dir).sort()).toEqual(['state.json', (backup as string).slice(dir.length + 1)].sort());
    expect(reset.stderr).not.toContain('is not used');
  });

  it('--sandbox resumes no earlier run: each sandbox is new, and its cursor is not saved', async () => {
    const stateHome = tempDir();
    const env = scrubbedEnv({ XDG_STATE_HOME: stateHome });
    for (const _ of [1, 2]) {
      const out = await runWatch(['--sandbox', '--once', '--since', '0'], env);
      expect(out.code, out.stderr).toBe(0);
      expect(envelopes(out.stdout).length).toBeGreaterThan(40);
      expect(out.stderr).toContain(
        'Each sandbox is new: the cursor is not saved, and every run starts from --since',
      );
      expect(out.stderr).not.toContain('is not used');
    }
    expect(existsSync(join(stateHome, 'model-feed-mcp'))).toBe(false);

    for (const flags of [['--state', join(stateHome, 's.json')], ['--reset']]) {
      const refused = await runWatch(['--sandbox', '--once', ...flags], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `model-feed-mcp: ${flags[0]} does not apply with --sandbox: each in-process sandbox is new, so its cursor is not saved and every run starts from --since. To try a restart, watch a standalone sandbox (\`model-feed-mcp sandbox --live 5\`) through --base-url and its key.\n`,
      );
    }
  });
});
