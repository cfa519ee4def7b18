import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE, scrubbedEnv } from './harness.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));

describe('npm run demo', () => {
  it('prints plain text when stdout is not a terminal: no escape codes in a log or a pipe', () => {
    const out = spawnSync(NODE, [DEMO], { env: scrubbedEnv(), encoding: 'utf8', timeout: 30_000 });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain('\n== tools/list\n');
    expect(out.stdout).toContain('tools/call get_model');
    expect(out.stdout).not.toContain('\x1b');
  });
});
