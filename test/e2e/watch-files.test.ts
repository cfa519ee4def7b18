/**
 * What `watch` does when its files change under it: a jsonl moved away by log rotation, an Atom
 * file shared by two watchers, a damaged state file. The built CLI against the sandbox.
 */

import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { MOUNTED_TREE, runAsNobody } from './as-nobody.js';
import { needRoot } from './disk-faults.js';
import { BIN, eventually, NODE, spawnRaw } from './harness.js';
import { envelopes, feedIds, runWatch, tempDir, watchEnv } from './watch-support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const lines = (path: string): number =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;

describe('--jsonl and log rotation', () => {
  it('writes to the path it was given after the file there is moved away or replaced', async () => {
    const dir = tempDir();
    const file = join(dir, 'o.jsonl');
    const all = (await feedIds(sandbox)).length;
    const watcher = spawnRaw(watchEnv(sandbox), [
      'watch',
      '--interval',
      '1',
      '--since',
      '0',
      '--state',
      join(dir, 's.json'),
      '--jsonl',
      file,
    ]);
    try {
      await eventually(() => lines(file) === all, `the first ${all} changes in ${file}`, 20_000);
      // logrotate's default: the file is renamed, and (with `compress`) the renamed copy deleted.
      renameSync(file, `${file}.1`);
      const first = sandbox.publish('price_change');
      await eventually(
        () => lines(file) === 1,
        `a new ${file} with the change published after the move`,
        20_000,
      );
      expect(envelopes(readFileSync(file, 'utf8'))[0]?.data.id).toBe(first.id);
      expect(lines(`${file}.1`)).toBe(all);

      // copytruncate's cousin: another file put in its place.
      writeFileSync(`${file}.new`, '');
      renameSync(`${file}.new`, file);
      const second = sandbox.publish('price_change');
      await eventually(() => lines(file) === 1, `the change published after the swap in ${file}`, 20_000);
      expect(envelopes(readFileSync(file, 'utf8'))[0]?.data.id).toBe(second.id);
    } finally {
      watcher.child.kill('SIGTERM');
      await watcher.exited;
    }
    expect(watcher.stderr()).not.toContain('Internal error');
    rmSync(`${file}.1`);
  }, 90_000);
});

describe('--atom shared or unreadable', () => {
  const count = (path: string) => (readFileSync(path, 'utf8').match(/<entry>/g) ?? []).length;

  it('two watchers writing one feed keep each other’s entries', async () => {
    const all = (await feedIds(sandbox)).length;
    for (let round = 0; round < 5; round++) {
      const dir = tempDir();
      const feed = join(dir, 'f.atom');
      const runs = await Promise.all(
        ['new_model', 'price_change'].map((type) =>
          runWatch(
            ['--once', '--since', '0', '--type', type, '--state', join(dir, `${type}.json`), '--atom', feed],
            watchEnv(sandbox),
            30_000,
          ),
        ),
      );
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const mine = await Promise.all(
        ['new_model', 'price_change'].map(async (type) => {
          const response = await fetch(`${sandbox.url}/api/v1/changes?since=0&limit=100&type=${type}`, {
            headers: { authorization: `Bearer ${sandbox.key}` },
          });
          return ((await response.json()) as { items: unknown[] }).items.length;
        }),
      );
      expect(mine[0]! + mine[1]!).toBeLessThanOrEqual(all);
      expect(count(feed), `round ${round}`).toBe(mine[0]! + mine[1]!);
    }
  }, 120_000);

  it('a feed this user cannot read stops the sink rather than being replaced (as nobody)', async () => {
    needRoot();
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const feed = join(dir, 'f.atom');
    const first = await runWatch(
      ['--once', '--since', '0', '--state', join(dir, 'root.json'), '--atom', feed],
      watchEnv(sandbox),
    );
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(feed);
    chmodSync(feed, 0o000);
    // Run in the folder, mounted where nobody can reach it: the paths are relative to it.
    const run = await runAsNobody(
      ['watch', '--once', '--since', '0', '--state', 'nobody.json', '--atom', 'f.atom'],
      watchEnv(sandbox),
      dir,
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `cannot read the Atom feed ${MOUNTED_TREE}/f.atom: permission denied (EACCES)`,
    );
    expect(readFileSync(feed)).toEqual(before);
  }, 60_000);
});

describe('a damaged state file', () => {
  const cursorOf = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { cursor: number }).cursor;

  /** A watcher that saved a cursor, then two more changes published: the gap a recovery must not skip. */
  async function savedThenGap(dir: string) {
    const state = join(dir, 's.json');
    const jsonl = join(dir, 'o.jsonl');
    const first = await runWatch(
      ['--once', '--since', '0', '--state', state, '--jsonl', jsonl],
      watchEnv(sandbox),
    );
    expect(first.code, first.stderr).toBe(0);
    const cursor = cursorOf(state);
    const gap = [sandbox.publish('price_change').id, sandbox.publish('new_model').id];
    return { state, jsonl, cursor, gap, flags: ['--once', '--state', state, '--jsonl', jsonl] };
  }

  /** Runs the command the message gives, and checks it delivered exactly the gap. */
  async function followAdvice(message: string, run: { flags: string[]; jsonl: string; gap: string[] }) {
    const since = /--reset --since (\d+)/.exec(message)?.[1];
    expect(since, message).toBeDefined();
    const before = lines(run.jsonl);
    const resumed = await runWatch([...run.flags, '--reset', '--since', since as string], watchEnv(sandbox));
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = envelopes(readFileSync(run.jsonl, 'utf8'))
      .slice(before)
      .map((envelope) => envelope.data.id);
    expect(ids).toEqual(run.gap);
  }

  it('cut to half: names the cursor it still holds and the command that loses nothing', async () => {
    const run = await savedThenGap(tempDir());
    const text = readFileSync(run.state, 'utf8');
    writeFileSync(run.state, text.slice(0, Math.ceil(text.length / 2)));
    const damaged = await runWatch(run.flags, watchEnv(sandbox));
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain(`--reset --since ${run.cursor}`);
    expect(damaged.stderr).toContain('--since now');
    await followAdvice(damaged.stderr, run);
  });

  it('emptied, random bytes or a folder: names the cursor of its backup, if any', async () => {
    for (const damage of ['empty', 'random', 'folder'] as const) {
      const run = await savedThenGap(tempDir());
      // A backup, as --reset leaves one, of the state saved before the gap.
      writeFileSync(`${run.state}.20261125T193302Z.bak`, readFileSync(run.state));
      rmSync(run.state);
      if (damage === 'empty') writeFileSync(run.state, '');
      if (damage === 'random') writeFileSync(run.state, Buffer.from('\u0000\u00ff\u00fe{"cur', 'latin1'));
      if (damage === 'folder') mkdirSync(run.state);
      const damaged = await runWatch(run.flags, watchEnv(sandbox));
      expect(damaged.code, damage).toBe(1);
      expect(damaged.stderr, damage).toContain(`${run.state}.20261125T193302Z.bak`);
      expect(damaged.stderr, damage).toContain(`--reset --since ${run.cursor}`);
      if (damage === 'folder') rmSync(run.state, { recursive: true });
      await followAdvice(damaged.stderr, run);
    }
  }, 60_000);

  it('with no cursor anywhere: says so, and warns that --since now skips the gap', async () => {
    const run = await savedThenGap(tempDir());
    writeFileSync(run.state, '');
    const damaged = await runWatch(run.flags, watchEnv(sandbox));
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain('no cursor can be read');
    expect(damaged.stderr).toContain('--since now');
  });
});

describe('a state file of another feed', () => {
  it('quotes its service and filters as any outside value: key-shaped parts hidden, escapes gone, cut short', async () => {
    const dir = tempDir();
    const state = join(dir, 's.json');
    const token = 'Un3YsKcwPgATmEXr5bvNfzSkDWqHauMeyRjCVpGZ';
    writeFileSync(
      state,
      JSON.stringify({
        version: 1,
        cursor: 5,
        service: `https://feed.example.test/${token}\u001b[2J\r\nmodel-feed-mcp: forged ${'x'.repeat(20_000)}`,
        filters: { type: `new_model\u001b]8;;https://evil.test\u0007${token}`, model: 'openai' },
        delivered: 0,
        updatedAt: '',
      }),
    );
    const run = await runWatch(['--once', '--state', state], watchEnv(sandbox));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('holds the cursor of another feed');
    expect(run.stderr).not.toContain(token.slice(0, 12));
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(run.stderr.length).toBeLessThan(3000);
  });
});

describe('temp files of a killed watcher', () => {
  it('kill -9 between the temp file and its rename: the next run removes what it left', async () => {
    const dir = tempDir();
    const runs = [
      { file: 's.json', flags: ['--state', join(dir, 's.json')] },
      // No state file (the in-process sandbox keeps none): the feed's is the first rename.
      { file: 'f.atom', flags: ['--sandbox', '--atom', join(dir, 'f.atom')] },
    ];
    for (const { file, flags } of runs) {
      const args = ['watch', '--once', '--since', '0', ...flags];
      // Every rename held back 8 s, so the kill lands between a temp file's write and its rename.
      const traced = spawn(
        'strace',
        ['-f', '-qq', '-o', '/dev/null', '-e', 'inject=rename:delay_enter=8000000', NODE, BIN, ...args],
        { env: watchEnv(sandbox), stdio: 'ignore' },
      );
      const exited = new Promise((resolve) => traced.once('exit', resolve));
      let temp: string | undefined;
      await eventually(
        () => {
          temp = readdirSync(dir).find((name) => name.startsWith(`.${file}.`) && name.endsWith('.tmp'));
          return temp !== undefined;
        },
        `a temp file of ${file}`,
        40_000,
      );
      process.kill(Number(temp?.split('.').at(-3)), 'SIGKILL');
      await exited;
      expect(readdirSync(dir)).toContain(temp);
      const run = await runWatch(args.slice(1), watchEnv(sandbox));
      expect(run.code, run.stderr).toBe(0);
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    }
  }, 150_000);

  it('are removed by the next run: the state’s, its lock’s and the atom feed’s; a live writer’s are kept', async () => {
    const dir = tempDir();
    const dead = 999_999;
    const leftovers = [
      `.s.json.${dead}.0a1b2c3d.tmp`,
      `s.json.lock.${dead}.0a1b2c3d.tmp`,
      `.f.atom.${dead}.0a1b2c3d.tmp`,
      `f.atom.lock.${dead}.0a1b2c3d.tmp`,
    ];
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of leftovers) {
      writeFileSync(join(dir, name), '{"cursor":');
      utimesSync(join(dir, name), hourAgo, hourAgo);
    }
    // A write in progress in another process (this one): never touched.
    const live = `.s.json.${process.pid}.0a1b2c3d.tmp`;
    writeFileSync(join(dir, live), '');
    const run = await runWatch(
      ['--once', '--since', '0', '--state', join(dir, 's.json'), '--atom', join(dir, 'f.atom')],
      watchEnv(sandbox),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([live, 'f.atom', 's.json'].sort());
  });
});

describe('a state file another watcher holds', () => {
  const holdLock = (lock: string) => {
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), nonce: 'x' }),
    );
  };

  it('names the default state file only when --state was not given', async () => {
    const dir = tempDir();
    holdLock(join(dir, 's.json.lock'));
    const given = await runWatch(['--once', '--state', join(dir, 's.json')], watchEnv(sandbox));
    expect(given.code).toBe(1);
    expect(given.stderr).toContain(`process ${process.pid}`);
    expect(given.stderr).not.toContain('the default for this feed');

    const home = tempDir();
    const env = watchEnv(sandbox, { XDG_STATE_HOME: home });
    const first = await runWatch(['--once'], env);
    expect(first.code, first.stderr).toBe(0);
    const [state] = readdirSync(join(home, 'model-feed-mcp'));
    holdLock(join(home, 'model-feed-mcp', `${state}.lock`));
    const defaulted = await runWatch(['--once'], env);
    expect(defaulted.code).toBe(1);
    expect(defaulted.stderr).toContain(
      `the default for this feed is ${join(home, 'model-feed-mcp', state as string)}`,
    );
  });
});
