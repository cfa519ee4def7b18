/**
 * setup's write is atomic: when any step of it fails, the config is as it was and no temp file is
 * left beside it. Failures are made by making one file-system call fail, so this holds whoever runs
 * the tests (root may write into a read-only folder: test/e2e/setup.test.ts covers that for others).
 */

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readConfig, writeConfig } from '../../src/setup/write.js';

const ORIGINAL = '{\n  "mcpServers": {}\n}\n';
const NOW = new Date('2026-11-23T12:00:00Z');

afterEach(() => {
  vi.restoreAllMocks();
});

function config(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'mf-write-')), 'mcp.json');
  writeFileSync(path, ORIGINAL);
  return path;
}

const fails = (code: string) => async () => {
  throw Object.assign(new Error(`${code}: simulated`), { code });
};

describe('writing a client config', () => {
  it('writes the new text, with a backup of the old, and nothing else beside it', async () => {
    const path = config();
    const backup = await writeConfig(await readConfig(path), '{"new": true}\n', NOW);
    expect(readFileSync(path, 'utf8')).toBe('{"new": true}\n');
    expect(readFileSync(backup!, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..')).sort()).toEqual(['mcp.json', 'mcp.json.20261123-120000.bak']);
  });

  it.each([
    ['the temp file cannot be created', 'open', 'EACCES'],
    ['the rename over the original fails', 'rename', 'EXDEV'],
  ] as const)('%s: the original is intact and no temp file is left', async (_case, call, code) => {
    const path = config();
    const file = await readConfig(path);
    vi.spyOn(fsp, call).mockImplementation(fails(code));
    await expect(writeConfig(file, '{"new": true}\n', NOW)).rejects.toThrow(code);
    vi.restoreAllMocks();
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL);
    expect(readdirSync(join(path, '..')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
