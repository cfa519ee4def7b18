/**
 * The names `check` reports are the files' own, each once, and all inside the tree it was given: a
 * backslash in a Linux file name is part of the name; a file reached through overlapping paths is
 * counted once; a folder swapped for a link out of the tree while the walk runs is never followed.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());

const env = () => scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });

interface JsonReport {
  summary: { scanned: number; references: number };
  references: { path: string; text: string }[];
}

describe('the names check reports', () => {
  it('a backslash in a file name is part of the name, not a folder separator', async () => {
    const tree = tempFolder('mf-names-');
    mkdirSync(join(tree, 'src'));
    writeFileSync(join(tree, 'src\\app.py'), 'A = "openai/gpt-4o-transcribe"\n');
    writeFileSync(join(tree, 'src/app.py'), 'nothing here\n');
    const result = await run(['check', '--format', 'sarif', '.'], env(), { cwd: tree });
    const sarif = JSON.parse(result.stdout);
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('src%5Capp.py');
    const json = await run(['check', '--format', 'json', '.'], env(), { cwd: tree });
    expect((JSON.parse(json.stdout) as JsonReport).references.map((r) => r.path)).toEqual(['src\\app.py']);
  });

  it('a name that is not UTF-8 is not skipped unseen: it is named as unread (exit 2)', async () => {
    const tree = tempFolder('mf-names-');
    writeFileSync(Buffer.from(`${tree}/\xffbad.py`, 'latin1'), 'm = "openai/gpt-4o-transcribe"\n');
    writeFileSync(join(tree, 'ok.py'), 'nothing\n');
    const result = await run(['check', '.'], env(), { cwd: tree });
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toContain('\uFFFDbad.py: its name is not UTF-8, which check cannot open');
  });

  it('a file named twice, by overlapping paths, is scanned and reported once', async () => {
    const tree = tempFolder('mf-names-');
    mkdirSync(join(tree, 'src'));
    writeFileSync(join(tree, 'src/a.ts'), 'const m = "openai/gpt-4o-transcribe";\n');
    const result = await run(['check', '--format', 'json', '.', 'src', 'src/a.ts', './src/'], env(), {
      cwd: tree,
    });
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.summary).toMatchObject({ scanned: 1, references: 1 });
    expect(report.references.map((r) => r.path)).toEqual(['src/a.ts']);
  });

  it('a folder swapped for a link out of the tree during the walk is never followed out', async () => {
    const root = tempFolder('mf-swap-');
    const tree = join(root, 'tree');
    const outside = join(root, 'outside');
    // Many folders, each swapped in turn: the walk meets a swap in every run.
    const FOLDERS = 200;
    mkdirSync(outside);
    for (let i = 0; i < 20; i++)
      writeFileSync(join(outside, `f${i}.py`), 'SECRET = "openai/gpt-4o-OUTSIDE"\n');
    for (let d = 0; d < FOLDERS; d++) {
      mkdirSync(join(tree, `d${d}`), { recursive: true });
      for (let i = 0; i < 20; i++) writeFileSync(join(tree, `d${d}`, `f${i}.py`), `x = ${i}\n`);
    }
    // Swaps each folder for a link to `outside` and back, as fast as it can, until killed.
    const swapper: ChildProcess = spawn(
      'python3',
      [
        '-c',
        `
import os, sys
tree, outside, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
while True:
    for d in range(n):
        path = os.path.join(tree, f"d{d}")
        os.rename(path, path + ".away")
        os.symlink(outside, path)
        os.unlink(path)
        os.rename(path + ".away", path)
`,
        tree,
        outside,
        String(FOLDERS),
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 8; i++) {
        const result = await run(['check', '--allow-unread', '--format', 'json', '.'], env(), {
          cwd: tree,
          timeoutMs: 60_000,
        });
        expect(result.stdout, `run ${i}`).not.toContain('OUTSIDE');
        expect(result.code, result.stderr).toBe(0);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
  }, 180_000);
});
