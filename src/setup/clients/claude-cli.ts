/**
 * Claude Code through its own CLI, when `claude` is on PATH: `claude mcp add model-feed --scope
 * user --env … -- <command> <args…>`. Claude Code then owns its file (~/.claude.json), which it
 * rewrites often while running. The name goes before `--env`, which takes several values
 * (anthropics/claude-code#62332). An entry already there is removed first: `add` refuses to replace.
 *
 * Spawned with an argument array, never through a shell. The key is in the argument list of that
 * one short-lived process (as with the documented `claude mcp add --env`); `--print` shows the
 * commands with the key masked.
 */

import { nodeChildProcess } from '../../lazy-node.js';
import type { ServerEntry } from '../entry.js';
import { SERVER_NAME } from '../entry.js';

const SCOPE = ['--scope', 'user'];

export function claudeAddArgs(entry: ServerEntry): string[] {
  const env = Object.entries(entry.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  return ['mcp', 'add', SERVER_NAME, ...SCOPE, ...env, '--', entry.command, ...entry.args];
}

export function claudeRemoveArgs(): string[] {
  return ['mcp', 'remove', SERVER_NAME, ...SCOPE];
}

export interface Ran {
  code: number | null;
  output: string;
}

export type RunProgram = (file: string, args: readonly string[]) => Promise<Ran>;

/** Runs a program without a shell, stdin closed, its output collected; bounded in time. */
export const runProgram: RunProgram = (file, args) =>
  new Promise((resolve) => {
    const child = nodeChildProcess().spawn(file, [...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      if (output.length < 64 * 1024) output += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: error.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

/** A `claude` that can be spawned without a shell: on Windows a .cmd shim cannot, so the JSON file is used there. */
export function spawnableClaude(path: string | undefined, platform: NodeJS.Platform): string | undefined {
  if (path === undefined) return undefined;
  if (platform === 'win32' && !/\.exe$/i.test(path)) return undefined;
  return path;
}
