/**
 * The CLI on a pseudo-terminal, as a person at a terminal runs it: stdin, stdout and stderr are one
 * TTY. util-linux `script` makes the pty (no native module: npm here runs no install scripts), and
 * `stty` gives it a size, since a fresh pty has none. SIGTERM to `script` ends the command too.
 */

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export interface Pty {
  /** Everything the terminal showed so far (stdout and stderr together, as a terminal has them). */
  output(): string;
  /** Types `text`, as keys are typed: "\r" is Enter. */
  type(text: string): void;
  /** Resolves with the output once `pattern` appears in what came after `from` (bounded wait). */
  waitFor(pattern: RegExp | string, options?: { timeoutMs?: number; from?: number }): Promise<string>;
  exited: Promise<number | null>;
  /** Ends the command (SIGTERM, then SIGKILL after 3 s) and waits for it. */
  close(): Promise<number | null>;
}

export interface PtyOptions {
  env: Record<string, string>;
  cwd?: string;
  /** @default 100 */
  columns?: number;
  /** @default 30 */
  rows?: number;
}

/** Single-quotes `word` for sh. */
const shellWord = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** Runs `argv` on a pty of its own. */
export function spawnPty(argv: readonly string[], options: PtyOptions): Pty {
  const { env, cwd, columns = 100, rows = 30 } = options;
  const command = `stty cols ${columns} rows ${rows}; exec ${argv.map(shellWord).join(' ')}`;
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', command, '/dev/null'], {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  // 'close', not 'exit': the command's last output may still be in the pipe when it exits, and a
  // wait that saw the exit first would miss it.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    output: () => out,
    type: (text) => child.stdin.write(text),
    exited,
    async waitFor(pattern, { timeoutMs = 10_000, from = 0 } = {}) {
      const deadline = performance.now() + timeoutMs;
      const found = () =>
        typeof pattern === 'string' ? out.slice(from).includes(pattern) : pattern.test(out.slice(from));
      while (!found()) {
        if (performance.now() > deadline || done) {
          throw new Error(
            `${done ? 'the command ended' : `${timeoutMs} ms passed`} before ${String(pattern)} appeared; the terminal showed:\n${out}`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return out;
    },
    async close() {
      if (!done) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}
