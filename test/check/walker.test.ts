import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyCounts, walkFiles } from '../../src/check/walker.js';
import { tempFolder } from '../support/temp.js';

/** Writes each file (folders made as needed) under a new temp folder. */
function tree(files: Record<string, string | Buffer>): string {
  const root = tempFolder('mf-check-walk-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

async function walk(paths: string[], maxFileSize = 4 * 1024 * 1024) {
  const counts = emptyCounts();
  const files: string[] = [];
  for await (const file of walkFiles(paths, { maxFileSize }, counts)) files.push(file.path);
  return { files, counts };
}

describe('the walker', () => {
  it('honours nested .gitignore files, negations, .git/info/exclude and .model-feed-ignore', async () => {
    const root = tree({
      '.git/info/exclude': 'secret.txt\n',
      '.git/config': 'not scanned',
      '.gitignore': '*.log\nbuild/\n!keep.log\n',
      '.model-feed-ignore': 'docs/old/\n',
      'app.py': 'model = "gpt-4o"',
      'keep.log': 'kept by a negation',
      'debug.log': 'ignored',
      'secret.txt': 'excluded',
      'build/out.js': 'ignored folder',
      'docs/old/notes.md': 'ignored by .model-feed-ignore',
      'docs/new.md': 'scanned',
      'src/.gitignore': '/generated.ts\n!debug.log\n',
      'src/generated.ts': 'ignored at its level',
      'src/debug.log': 'brought back by the nested negation',
      'src/deep/generated.ts': 'anchored rule: not this one',
      'src/main.ts': 'scanned',
      'node_modules/pkg/index.js': 'never',
      'src/node_modules/x.js': 'never',
      'Upper.LOG': 'case-sensitive, as git on Linux',
    });
    const { files, counts } = await walk([root]);
    const shown = files.map((f) => f.slice(root.length + 1)).sort();
    expect(shown).toEqual([
      '.gitignore',
      '.model-feed-ignore',
      'Upper.LOG',
      'app.py',
      'docs/new.md',
      'keep.log',
      'src/.gitignore',
      'src/debug.log',
      'src/deep/generated.ts',
      'src/main.ts',
    ]);
    expect(counts).toEqual({ ...emptyCounts(), scanned: 10 });
  });

  it('applies the repository rules above a path it is given inside the repository', async () => {
    const root = tree({
      '.git/HEAD': 'ref: refs/heads/main',
      '.gitignore': 'fixtures/\n',
      'pkg/src/a.ts': 'scanned',
      'pkg/src/fixtures/b.ts': 'ignored by the top .gitignore',
    });
    const { files } = await walk([join(root, 'pkg')]);
    expect(files).toEqual([join(root, 'pkg/src/a.ts')]);
  });

  it('keeps relative paths relative, in a stable order', async () => {
    const root = tree({ 'b.txt': 'b', 'a/z.txt': 'z', 'a.txt': 'a' });
    const previous = process.cwd();
    process.chdir(root);
    try {
      expect((await walk(['.'])).files).toEqual(['a.txt', 'b.txt', 'a/z.txt']);
      expect((await walk(['a'])).files).toEqual(['a/z.txt']);
    } finally {
      process.chdir(previous);
    }
  });

  it('skips binary files, files over the limit, and counts them', async () => {
    const root = tree({
      'text.md': 'gpt-4o',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      // Git's rule: only the first 8,000 bytes decide.
      'late-nul.txt': `${'a'.repeat(9000)}\u0000`,
      'big.json': 'x'.repeat(20_000),
    });
    const { files, counts } = await walk([root], 10_000);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['late-nul.txt', 'text.md']);
    expect(counts).toEqual({ ...emptyCounts(), scanned: 2, tooLarge: 1, binary: 1 });
  });

  it('follows links to files inside the tree only, never to folders, and never waits on a FIFO', async () => {
    const outside = tree({ 'elsewhere.txt': 'outside the tree' });
    const root = tree({ 'real.txt': 'inside', 'folder/x.txt': 'once' });
    symlinkSync(join(root, 'real.txt'), join(root, 'link-in.txt'));
    symlinkSync(join(outside, 'elsewhere.txt'), join(root, 'link-out.txt'));
    symlinkSync(join(root, 'folder'), join(root, 'link-folder'));
    symlinkSync(join(root, 'missing'), join(root, 'dangling'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const { files, counts } = await walk([root, join(root, 'pipe')]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['link-in.txt', 'real.txt', 'folder/x.txt']);
    // The link out, the link to a folder, the dangling link, the FIFO walked; the FIFO given is unread.
    const pipe = join(root, 'pipe');
    expect(counts).toEqual({
      ...emptyCounts(),
      scanned: 3,
      other: 4,
      unreadable: 1,
      unread: [{ path: pipe, reason: 'not a file or folder (a FIFO)' }],
    });
  });

  it('says which ignore files it did not use whole: one over 1 MiB, one with rules left out', async () => {
    const root = tree({
      '.gitignore': `${'#'.repeat(1024 * 1024)}\n*.py\n`,
      'sub/.gitignore': `${'x*'.repeat(3000)}\nskipped.txt\n`,
      'app.py': 'read: the rule that would ignore it is in a file too large to read',
      'sub/skipped.txt': 'ignored',
      'sub/kept.txt': 'read',
    });
    const { files, counts } = await walk([root]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      '.gitignore',
      'app.py',
      'sub/.gitignore',
      'sub/kept.txt',
    ]);
    expect(counts.ignoreRulesLeftOut).toBe(1);
    expect(counts.ignoreFilesCapped).toEqual([
      join(root, '.gitignore (over 1 MiB, not read)'),
      join(root, 'sub/.gitignore'),
    ]);
  });
});
