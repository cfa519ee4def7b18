/**
 * The baseline file under hostile conditions: `--write-baseline` writes a regular file or a new one,
 * never through a FIFO or a device; what it writes, `--baseline` reads back; a disk that refuses the
 * write, and a baseline that cannot be read, are plain messages naming the file (exit 2), never
 * "Internal error"; a temp file a killed write left behind is neither scanned nor kept.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { runAsNobody } from './as-nobody.js';
import { run, scrubbedEnv } from './harness.js';

const NEAR_MISS = 'MODEL = "openai/gpt-4o-transcribe"\n';

let sandbox: Sandbox;
let tree: string;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  tree = tempFolder('mf-baseline-');
  chmodSync(tree, 0o755);
  writeFileSync(join(tree, 'app.py'), NEAR_MISS);
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});

const check = (args: string[]) => run(['check', ...args], env, { cwd: tree, timeoutMs: 60_000 });

function requireRoot(): void {
  if (process.getuid?.() !== 0)
    throw new Error('this test makes device nodes and mounts: run it as root (CI does)');
}

/** A tmpfs of `size` mounted on a new folder for the length of `use`, unmounted whatever happens. */
async function withTmpfs<T>(options: string, use: (folder: string) => Promise<T>): Promise<T> {
  const folder = join(tree, 'mnt');
  mkdirSync(folder, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', folder]);
  try {
    return await use(folder);
  } finally {
    execFileSync('umount', [folder]);
  }
}

function expectPlain(result: { code: number | null; stderr: string }, ...parts: string[]): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toContain('Internal error');
  for (const part of parts) expect(result.stderr).toContain(part);
}

describe('--write-baseline writes a regular file, or a new one, and nothing else', () => {
  it('refuses a FIFO and a device node, and leaves them as they are', async () => {
    requireRoot();
    execFileSync('mkfifo', [join(tree, 'fifo')]);
    const fifo = await check(['--write-baseline', 'fifo']);
    expectPlain(fifo, '--write-baseline fifo is not a regular file (it is a FIFO)');
    expect(statSync(join(tree, 'fifo')).isFIFO()).toBe(true);

    // A null device of our own, never the machine's /dev/null.
    execFileSync('mknod', [join(tree, 'null'), 'c', '1', '3']);
    const device = await check(['--write-baseline', 'null']);
    expectPlain(device, '--write-baseline null is not a regular file (it is a device)');
    expect(statSync(join(tree, 'null')).isCharacterDevice()).toBe(true);
  });

  it('a folder at the path, a file in place of its folder, a name too long: plain messages', async () => {
    mkdirSync(join(tree, 'folder'));
    expectPlain(
      await check(['--write-baseline', 'folder']),
      '--write-baseline folder is not a regular file (it is a folder)',
    );
    expectPlain(
      await check(['--write-baseline', 'app.py/base.json']),
      'cannot write app.py/base.json: a part of the path is not a folder (ENOTDIR)',
    );
    const long = `${'n'.repeat(300)}.json`;
    expectPlain(await check(['--write-baseline', long]), 'the path is too long (ENAMETOOLONG)');
  });

  it('a full disk and a read-only one: plain messages, the old baseline kept', async () => {
    requireRoot();
    await withTmpfs('size=64k', async (folder) => {
      writeFileSync(join(folder, 'base.json'), '{"version":1,"findings":[]}\n');
      // Fill what is left, to the last block.
      spawnSync('dd', ['if=/dev/zero', `of=${join(folder, 'fill')}`, 'bs=4096']);
      const full = await check(['--write-baseline', 'mnt/base.json']);
      expectPlain(full, 'cannot write mnt/base.json: the disk is full (ENOSPC)', 'Make room there');
      expect(readFileSync(join(folder, 'base.json'), 'utf8')).toBe('{"version":1,"findings":[]}\n');
      expect(readdirSync(folder).sort()).toEqual(['base.json', 'fill']);
    });
    await withTmpfs('size=64k,ro', async () => {
      const readOnly = await check(['--write-baseline', 'mnt/base.json']);
      expectPlain(readOnly, 'cannot write mnt/base.json: the file system is read-only (EROFS)');
    });
  });

  it('what it writes, --baseline reads: a baseline too large to read back is not written', async () => {
    // 24 files, each naming 1,000 distinct near misses, under a path of about 1,000 characters:
    // 24,000 accepted findings, more than --baseline reads.
    const deep = join(...Array.from({ length: 4 }, (_, i) => `${String(i).repeat(250)}`));
    mkdirSync(join(tree, deep), { recursive: true });
    for (let f = 0; f < 24; f++) {
      const lines = Array.from({ length: 1000 }, (_, i) => `m = "openai/gpt-4o-f${f}x${i}"`);
      writeFileSync(join(tree, deep, `f${f}.py`), `${lines.join('\n')}\n`);
    }
    const written = await check(['--format', 'json', '--write-baseline', 'base.json']);
    expectPlain(written, '--write-baseline base.json: the baseline would be', 'MiB, more than the 16 MiB');
    expect(existsSync(join(tree, 'base.json'))).toBe(false);
  });
});

describe('user mistakes with the baseline flags', () => {
  it('an empty file name, a folder that takes no new file, a path too long to quote: plain messages', async () => {
    expectPlain(
      await check(['--write-baseline', '']),
      '--write-baseline takes a file name; got an empty one.',
    );
    expectPlain(await check(['--baseline', ' ']), '--baseline takes a file name; got an empty one.');
    expectPlain(
      await check(['--write-baseline', '/proc/version']),
      'cannot write /proc/version: its folder cannot hold a new file (ENOENT)',
    );
    // A folder is not made: under /proc, a recursive mkdir never returned.
    expectPlain(
      await check(['--write-baseline', '/proc/nothere/x/base.json']),
      'cannot write /proc/nothere/x/base.json: its folder /proc/nothere/x does not exist. Make it first',
    );
    expectPlain(await check(['--write-baseline', 'new/base.json']), 'its folder new does not exist');
    const long = `${'d'.repeat(4000)}/base.json`;
    const quoted = await check(['--baseline', long]);
    // Cut in the middle, as every path quoted back is: its start and its file's name kept.
    expectPlain(quoted, `--baseline ${'d'.repeat(60)}…`, `${'d'.repeat(80)}/base.json`);
    expect(quoted.stderr.length).toBeLessThan(1000);
  });
});

describe('--baseline that cannot be read', () => {
  it('unreadable (as nobody) or a folder: plain messages, exit 2', async () => {
    requireRoot();
    writeFileSync(join(tree, 'base.json'), '{"version":1,"findings":[]}\n', { mode: 0o600 });
    expectPlain(
      await runAsNobody(['check', '--baseline', 'base.json', '.'], env, tree),
      '--baseline base.json cannot be read: permission denied (EACCES)',
    );
    mkdirSync(join(tree, 'folder'));
    expectPlain(
      await check(['--baseline', 'folder']),
      '--baseline folder is not a regular file (it is a folder)',
    );
  });
});

describe('a baseline whose version is not ours', () => {
  it('is quoted on one line, a key-like value hidden', async () => {
    const key = 'UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ';
    writeFileSync(join(tree, 'odd.json'), JSON.stringify({ version: `${key}\u2028next`, findings: [] }));
    const result = await check(['--baseline', 'odd.json', '.']);
    expectPlain(result, '--baseline odd.json');
    expect(result.stderr).not.toContain(key.slice(0, 12));
    expect(result.stderr).not.toMatch(/[\u2028\u2029]/);
  });
});

describe("a killed write's temp file", () => {
  it('is not scanned, and the next write removes it', async () => {
    const written = await check(['--write-baseline', 'base.json']);
    expect(written.code, written.stderr).toBe(0);
    // As `kill -9` between the temp file's write and its rename leaves it: a pid no longer running.
    const stale = join(tree, '.base.json.99999999.0a1b2c3d.tmp');
    writeFileSync(stale, readFileSync(join(tree, 'base.json')));
    writeFileSync(join(tree, 'base.json'), '{"version":1,"findings":[]}\n');
    writeFileSync(join(tree, 'app.py'), 'nothing\n');
    const checked = await check(['--baseline', 'base.json', '--format', 'json']);
    expect(checked.code, checked.stdout).toBe(0);
    expect(JSON.parse(checked.stdout).summary.scanned).toBe(1);

    expect((await check(['--write-baseline', 'base.json'])).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
  });
});
