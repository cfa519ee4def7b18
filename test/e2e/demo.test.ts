import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE, scrubbedEnv } from './harness.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
/** Makes the demo believe its stdout is a terminal, as it would be in a person's shell. */
const AS_IF_TTY = 'data:text/javascript,process.stdout.isTTY=true';

function demo(args: string[], env: Record<string, string>) {
  const out = spawnSync(NODE, [...args, DEMO], { env, encoding: 'utf8', timeout: 30_000 });
  expect(out.status, out.stderr).toBe(0);
  expect(out.stdout).toContain('tools/call get_model');
  return out.stdout;
}

describe('npm run demo', () => {
  it('prints plain text when stdout is not a terminal: no escape codes in a log or a pipe', () => {
    const stdout = demo([], scrubbedEnv());
    expect(stdout).toContain('\n== tools/list\n');
    expect(stdout).not.toContain('\x1b');
  });

  it('on a terminal: bold headings, and none at all with NO_COLOR set', () => {
    expect(demo(['--import', AS_IF_TTY], scrubbedEnv())).toContain('\x1b[1m== tools/list\x1b[0m');
    const plain = demo(['--import', AS_IF_TTY], scrubbedEnv({ NO_COLOR: '1' }));
    expect(plain).toContain('\n== tools/list\n');
    expect(plain).not.toContain('\x1b');
  });

  it('skips the type-declaration build, which it does not need: tsup runs with --no-dts', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const config = readFileSync(new URL('../../tsup.config.ts', import.meta.url), 'utf8');
    // The build does make declarations, so the flag is what keeps the demo from waiting on them.
    expect(config).toMatch(/^\s*dts: /m);
    expect(pkg.scripts.demo).toMatch(/^tsup --no-dts\b[^&]*&& node scripts\/demo\.mjs$/);
  });
});
