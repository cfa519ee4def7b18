/**
 * End-to-end harness: the built CLI, spawned with a scrubbed environment (no real key, proxy or CA
 * setting can leak in from the shell), driven by the SDK's own Client over stdio.
 */

import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CallToolResult, Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempFolder } from '../support/temp.js';

export const BIN = fileURLToPath(new URL('../../bin/model-feed-mcp.cjs', import.meta.url));
/** The Node that runs the CLI: this one, or another given by E2E_NODE (CI runs the suite on Node 24 too). */
export const NODE = process.env.E2E_NODE || process.execPath;

if (!existsSync(fileURLToPath(new URL('../../dist/index.cjs', import.meta.url)))) {
  throw new Error(
    'dist/index.cjs is missing: run `npm run build` before the end-to-end tests (npm test does).',
  );
}

/**
 * Only what the test names, plus PATH, and a cache folder of its own: the processes of a test share
 * a disk cache only when the test hands them the same XDG_CACHE_HOME.
 */
export function scrubbedEnv(vars: Record<string, string | undefined> = {}): Record<string, string> {
  const cacheHome = tempFolder('mf-cache-');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    XDG_CACHE_HOME: cacheHome,
  };
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) env[name] = value;
  return env;
}

export interface CliSession {
  client: Client;
  /** Everything the CLI wrote to stderr so far. */
  stderr(): string;
  /** Lines on stdout the client could not read as JSON-RPC; must stay empty. */
  protocolErrors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectCli(env: Record<string, string>, args: string[] = []): Promise<CliSession> {
  const transport = new StdioClientTransport({ command: NODE, args: [BIN, ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  reportNonJsonLines(transport, (line) => protocolErrors.push(new Error(`not JSON on stdout: ${line}`)));
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    protocolErrors,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

/**
 * The v2 SDK's stdio transport skips a stdout line that is not JSON without a word (v1 reported it
 * through onerror, which is what protocolErrors collected), so the harness reads the CLI's stdout
 * alongside it and reports every such line itself. A line that is JSON but not JSON-RPC still
 * reaches onerror through the SDK.
 */
function reportNonJsonLines(transport: StdioClientTransport, report: (line: string) => void): void {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    // The transport keeps its child process private; without it this check would pass silently.
    const stdout = (transport as unknown as { _process?: ChildProcess })._process?.stdout;
    if (!stdout) throw new Error('the harness cannot read the CLI stdout beside StdioClientTransport');
    let pending = Buffer.alloc(0);
    stdout.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(0x0a); end !== -1; end = pending.indexOf(0x0a)) {
        const line = pending.toString('utf8', 0, end).replace(/\r$/, '');
        pending = pending.subarray(end + 1);
        try {
          JSON.parse(line);
        } catch {
          report(line);
        }
      }
    });
  };
}

export function resultText(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

export interface RawProcess {
  child: ChildProcessWithoutNullStreams;
  /** Raw stdout as text. */
  stdout(): string;
  /** Raw stdout, byte for byte: what a size on the wire is measured on. */
  stdoutBytes(): Buffer;
  stderr(): string;
  send(line: string): void;
  /** Resolves with the parsed JSON-RPC answer to `id` (bounded wait). */
  answer(id: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * The CLI with raw pipes, for byte-level checks of stdout and process lifetime. `bin`: another copy
 * of the CLI (an install of its own, say).
 */
export function spawnRaw(env: Record<string, string>, args: string[] = [], bin = BIN): RawProcess {
  const child = spawn(NODE, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // Writing to a process that has ended is EPIPE: what it wrote before is what the test reads.
  child.stdin.on('error', () => {});
  let out = '';
  let err = '';
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => {
    chunks.push(c);
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const messages = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    stdout: () => out,
    stdoutBytes: () => Buffer.concat(chunks),
    stderr: () => err,
    send: (line) => child.stdin.write(`${line}\n`),
    exited,
    answer: async (id, timeoutMs = 10_000) => {
      const deadline = performance.now() + timeoutMs;
      while (performance.now() < deadline) {
        const found = messages().find((m) => m.id === id);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no answer to id ${id} within ${timeoutMs} ms; stdout: ${out}; stderr: ${err}`);
    },
  };
}

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed (a pipe, so not a TTY). @default nothing */
  input?: string;
  /** @default 15000 */
  timeoutMs?: number;
  /** The folder it runs in. @default this process's */
  cwd?: string;
}

/** Runs the CLI to completion (bounded) and collects its output. */
export function run(args: string[], env = scrubbedEnv(), options: RunOptions = {}): Promise<Output> {
  return runCommand(NODE, [BIN, ...args], env, options);
}

/** Runs a command to completion (bounded) and collects its output: the CLI, or a wrapper around it. */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: RunOptions = {},
): Promise<Output> {
  const { input, timeoutMs = 15_000, cwd } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that exits before reading its input closes the pipe: EPIPE there is no failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
export const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** One JSON-RPC request line (without the newline). */
export const request = (id: number, method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });

/** One tools/call request line. */
export const toolCall = (id: number, name: string, args: unknown): string =>
  request(id, 'tools/call', { name, arguments: args });

/** Polls `check` every 20 ms until it holds (bounded). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
