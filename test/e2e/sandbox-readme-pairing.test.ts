/**
 * The README's pairing of `sandbox --live` and `watch`, run as the README writes it: the two
 * commands are read out of README.md (so the test breaks when the README drifts), run by a shell
 * with `model-feed-mcp` standing for the built CLI, and the export line the sandbox prints is
 * pasted into the watcher's shell, as a reader would. A change must arrive within 15 s, where a
 * free-tier sandbox made `watch` poll every 346 s and refuse `--interval 5`.
 */

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';
import { BIN, eventually, NODE, scrubbedEnv } from './harness.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/**
 * The README's inline commands of the "Watch the feed" section that run `model-feed-mcp <command>`
 * with flags (a bare `model-feed-mcp watch` there names the command, it is not one to run).
 */
function readmeCommands(command: string): string[] {
  const section = /^## Watch the feed\n([\s\S]*?)^## /m.exec(README)?.[1] ?? '';
  // `npx -y model-feed-mcp …` would be the same command, fetched by npx.
  const pattern = new RegExp(`\`(?:npx -y )?model-feed-mcp (${command} --[^\`]*)\``, 'g');
  return [...section.matchAll(pattern)].map((m) => `model-feed-mcp ${m[1]}`);
}

/**
 * A shell that runs `lines` where `model-feed-mcp` is the built CLI, found on PATH as after an
 * install. The script's last command is run with `exec`, so that the CLI is the child itself and a
 * signal to the child reaches it, as Ctrl+C would.
 */
function shell(lines: string[], env: Record<string, string>): Shell {
  const bin = tempFolder('mf-pairing-bin-');
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  writeFileSync(join(bin, 'model-feed-mcp'), `#!/bin/sh\nexec ${quote(NODE)} ${quote(BIN)} "$@"\n`, {
    mode: 0o755,
  });
  const script = [...lines.slice(0, -1), `exec ${lines.at(-1)}`].join('\n');
  const child = spawn('sh', ['-c', script], { env: { ...env, PATH: `${bin}:${env.PATH}` }, stdio: 'pipe' });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

interface Shell {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

async function stop(running: Shell | undefined): Promise<void> {
  if (running === undefined) return;
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGINT');
  await running.exited;
}

describe('README: `sandbox --live` paired with `watch --interval`', () => {
  it('names one sandbox command with --live and one watch command with --interval, and the export line', () => {
    expect(readmeCommands('sandbox')).toEqual([expect.stringMatching(/ --live \d+/)]);
    expect(readmeCommands('watch')).toEqual([expect.stringMatching(/ --interval \d+/)]);
    expect(README).toMatch(/export\s+line/);
  });

  it('delivers a change within 15 s, following the README literally', async () => {
    const [sandboxCommand = ''] = readmeCommands('sandbox');
    const [watchCommand = ''] = readmeCommands('watch');
    // The watch cursor goes to a state folder of this test's own, removed with it.
    const env = scrubbedEnv({ XDG_STATE_HOME: tempFolder('mf-pairing-state-') });
    let sandbox: Shell | undefined;
    let watcher: Shell | undefined;
    try {
      sandbox = shell([sandboxCommand], env);
      const started = sandbox;
      await eventually(
        () => /Press Ctrl\+C/.test(started.output.stdout) || started.child.exitCode !== null,
        'the sandbox to start',
      );
      // The line the sandbox tells the reader to paste into another shell.
      const exportLine = /^ {2}(export MODEL_FEED_BASE_URL=\S+ MODEL_FEED_API_KEY=\S+)$/m.exec(
        sandbox.output.stdout,
      )?.[1];
      expect(exportLine, sandbox.output.stdout + sandbox.output.stderr).toBeDefined();
      expect(sandbox.output.stdout).toContain('  tier      pro: 100,000 calls a day');

      watcher = shell([exportLine ?? '', watchCommand], env);
      const watching = watcher;
      const delivered = () =>
        watching.output.stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { type: string; data: { id: string; title: string } });
      await eventually(
        () => delivered().length > 0 || watching.child.exitCode !== null,
        'a change from the watcher',
        15_000,
      ).catch(() => undefined);
      expect(delivered().length, `watch stderr: ${watching.output.stderr}`).toBeGreaterThan(0);
      const [first] = delivered();
      expect(first?.type).toBe('model_feed.change');
      // A change the running sandbox published (watch starts after the newest one there was).
      expect(sandbox.output.stderr).toContain(`${first?.data.id}: ${first?.data.title}`);
      expect(watcher.output.stderr).not.toMatch(/error|refus/i);
    } finally {
      await stop(watcher);
      await stop(sandbox);
    }
    expect(await sandbox.exited).toBe(0);
    expect(await watcher.exited).toBe(0);
  }, 30_000);
});
