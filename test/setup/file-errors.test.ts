/**
 * What setup says when a client's file cannot be read: a sentence naming the file and the reason,
 * never "Internal error", and the other chosen clients still done. In-process, with the failing
 * file-system call made to fail (root, who runs the suite, may read any file).
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SetupFacts } from '../../src/commands/setup/facts.js';
import { runSetup } from '../../src/commands/setup/run.js';

const homes: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function facts(home: string): SetupFacts {
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  return {
    platform: 'linux',
    home,
    script: '/opt/model-feed-mcp/bin/model-feed-mcp.cjs',
    nodePath: '/usr/bin/node',
    stdin,
    now: () => new Date('2026-01-02T03:04:05Z'),
    isFile: () => false,
    exists: () => true,
    runProgram: async () => ({ code: 1, output: 'not expected' }),
    loadFormats: () => import('../../src/setup/formats.js'),
  };
}

const WITH_OURS = '{\n  "mcpServers": {\n    "model-feed": { "command": "npx" }\n  }\n}\n';

describe('a file setup may not read', () => {
  it('EACCES: named with the reason in words; the other client is still done', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mf-setup-eacces-'));
    homes.push(home);
    const locked = join(home, '.cursor/mcp.json');
    const other = join(home, '.gemini/settings.json');
    for (const path of [locked, other]) {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, WITH_OURS);
    }
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${locked}'`), {
      code: 'EACCES',
      syscall: 'open',
      path: locked,
    });
    for (const call of ['open', 'readFile'] as const) {
      const real = fsp[call].bind(fsp) as (...args: unknown[]) => Promise<unknown>;
      vi.spyOn(fsp, call).mockImplementation((async (...args: unknown[]) => {
        if (String(args[0]) === locked) throw denied;
        return real(...args);
      }) as never);
    }
    let out = '';
    let err = '';
    const io = {
      stdout: (t: string) => {
        out += t;
      },
      stderr: (t: string) => {
        err += t;
      },
      env: {},
    };
    const code = await runSetup({ client: ['cursor,gemini'], remove: true }, io, facts(home));
    expect(code).toBe(1);
    expect(err).toBe(
      `Cursor: cannot read ${locked}: permission denied (EACCES); left it alone. Check the file's owner and mode, or run setup as the user whose file it is.\n`,
    );
    expect(out).toContain(`Gemini CLI: removed model-feed from ${other}`);
    expect(readFileSync(locked, 'utf8')).toBe(WITH_OURS);
  });
});
