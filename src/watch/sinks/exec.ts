/**
 * The `--exec <command>` sink: runs the user's command once per change, through the shell, with the
 * envelope on stdin (one line of JSON) and facts about the change in its environment. Exit 0
 * is a delivery; anything else (an exit code, a signal, the timeout, a command that cannot start) is
 * a failed one, which the follower retries like any other.
 *
 * The command runs in a process group of its own on POSIX, so that a timeout or a shutdown ends the
 * whole pipeline it started (`a | b`, `sleep 30 &`), not only the shell. Windows has no process
 * groups: there only the shell itself is ended.
 */

import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { DeliveryError } from '../../errors.js';
import { envelopeJson } from '../../feed/envelope.js';
import { oneLine, terminalSafe } from '../../text/terminal.js';
import type { MarkedDelivery } from '../news.js';
import type { Sink } from './sink.js';

export interface ExecSinkOptions {
  /** The command line, run by the shell: `/bin/sh -c` on POSIX, `cmd.exe` on Windows. */
  command: string;
  /** How long one run may take, in ms, before its process group is ended and the delivery fails. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL, in ms, when a run is ended. @default 1000 */
  killGraceMs?: number;
  /**
   * The environment the command starts from, given by the caller (its `process.env`). The API key
   * and the webhook secret are always removed from it: a user's script never receives them.
   */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Where the command's stdout and stderr go: whole lines, each ending in a newline (a last line
   * without one gets it), terminal-safe and at most MAX_EXEC_OUTPUT_BYTES per run. Whole lines, so
   * the caller can write them around a status line. The caller sends them to stderr: our stdout
   * may be the stdout sink's.
   */
  output: (lines: string) => void;
  /** Decides between process groups (POSIX) and ending the shell alone (Windows). @default process.platform */
  platform?: NodeJS.Platform;
}

/** Never passed on to the command, whatever their case (Windows names are case-insensitive). */
const HIDDEN_ENV = ['MODEL_FEED_API_KEY', 'MODEL_FEED_WEBHOOK_SECRET'];

/** The variables the sink sets; a same-named one in the base environment is replaced. */
const EVENT_ENV = [
  'MODEL_FEED_EVENT_ID',
  'MODEL_FEED_EVENT_TYPE',
  'MODEL_FEED_MODEL',
  'MODEL_FEED_DELIVERY',
  'MODEL_FEED_CHANGED',
  'MODEL_FEED_REJECTED',
];

const REMOVED_ENV = new Set([...HIDDEN_ENV, ...EVENT_ENV]);

/** Far longer than any real id, type or slug; a huge value from the service stays small. */
const MAX_ENV_VALUE_LENGTH = 1000;

/** What one run may print before the rest is dropped: a looping script must not flood the log. */
export const MAX_EXEC_OUTPUT_BYTES = 64 * 1024;

/** Between SIGTERM and SIGKILL: time for a script to clean up, short enough for a prompt shutdown. */
const DEFAULT_KILL_GRACE_MS = 1000;

/**
 * After the shell exits, how long its pipes may stay open before we stop reading them: a background
 * child that escaped the group (`setsid`, `nohup … &`) can hold them open for as long as it runs.
 */
const PIPE_DRAIN_MS = 200;

const LABEL_COMMAND_LENGTH = 60;

/** The first `length` code units, without leaving half of a surrogate pair at the end. */
function cut(text: string, length: number): string {
  const head = text.slice(0, length);
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
}

/**
 * A value from the service, made fit for an environment variable: control characters (NUL, which
 * spawn refuses, among them), escape sequences and bidi marks removed, line breaks made spaces, and
 * cut to MAX_ENV_VALUE_LENGTH. Cleaning a prefix is enough, and keeps a huge value cheap.
 */
function envValue(value: string): string {
  return cut(oneLine(cut(value, MAX_ENV_VALUE_LENGTH * 4)), MAX_ENV_VALUE_LENGTH);
}

/**
 * The command's environment: the base, less the secrets, plus facts about the change and its
 * marking (`new` or `update`, the fields that moved, comma-separated, and `true` when rejected), so
 * a script can pass over an update or a rejected change without parsing the envelope.
 */
function childEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  { event, marking }: MarkedDelivery,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || REMOVED_ENV.has(name.toUpperCase())) continue;
    env[name] = value;
  }
  env.MODEL_FEED_EVENT_ID = envValue(event.id);
  env.MODEL_FEED_EVENT_TYPE = envValue(event.eventType);
  env.MODEL_FEED_MODEL = envValue(event.model.slug);
  env.MODEL_FEED_DELIVERY = marking.delivery;
  env.MODEL_FEED_CHANGED = marking.changed.join(',');
  env.MODEL_FEED_REJECTED = String(marking.rejected);
  return env;
}

/**
 * The command's first word only: its arguments may hold a token (`curl -H 'Authorization: …'`),
 * and the label appears in every log line about a delivery.
 */
function commandLabel(command: string): string {
  const program =
    oneLine(cut(command, LABEL_COMMAND_LENGTH * 4))
      .trim()
      .split(/\s+/)[0] ?? '';
  const shown =
    program.length <= LABEL_COMMAND_LENGTH ? program : `${cut(program, LABEL_COMMAND_LENGTH - 1)}…`;
  return program === command.trim() ? `exec ${shown}` : `exec ${shown} …`;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return oneLine(code ? `${code}: ${error.message}` : error.message);
  }
  return oneLine(String(error));
}

/** One child on its way: how to end it, and when it has exited. */
interface Running {
  terminate(): void;
  exited: Promise<void>;
}

export function createExecSink(options: ExecSinkOptions): Sink {
  const label = commandLabel(options.command);
  const windows = (options.platform ?? process.platform) === 'win32';
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const running = new Set<Running>();
  let closed = false;

  /** Sends `signal` to the child's whole process group (POSIX) or to the shell (Windows). */
  function kill(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (windows) child.kill(signal);
      else if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  function runOnce(delivery: MarkedDelivery, signal: AbortSignal): Promise<void> {
    if (closed) return Promise.reject(new DeliveryError(`${label}: the sink is closed`, false));
    if (signal.aborted) return Promise.reject(signal.reason);

    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        // Loaded here, not at the top: the server's start-up would pay for it (6 ms) and never use it.
        const { spawn } = process.getBuiltinModule('node:child_process');
        child = spawn(options.command, {
          shell: true,
          detached: !windows,
          env: childEnvironment(options.env, delivery),
          stdio: 'pipe',
          windowsHide: true,
        });
      } catch (error) {
        reject(new DeliveryError(`${label} could not start: ${reasonOf(error)}`, false));
        return;
      }

      let settled = false;
      let finished = false;
      let timedOut = false;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      let giveUpTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      let markExited: () => void = () => {};
      const entry: Running = {
        terminate,
        exited: new Promise<void>((done) => {
          markExited = done;
        }),
      };
      running.add(entry);

      function settle(error?: unknown): void {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        signal.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      }

      /** SIGTERM now, SIGKILL a second later; the SIGKILL also reaches children that ignored SIGTERM. */
      function terminate(): void {
        if (killTimer) return;
        kill(child, 'SIGTERM');
        killTimer = setTimeout(() => kill(child, 'SIGKILL'), killGraceMs);
        // A child stuck where even SIGKILL cannot end it must not hold the follower forever.
        giveUpTimer = setTimeout(finish, killGraceMs * 2);
      }

      const timeout = setTimeout(() => {
        timedOut = true;
        terminate();
      }, options.timeoutMs);

      function onAbort(): void {
        terminate();
        settle(signal.reason);
      }
      signal.addEventListener('abort', onAbort, { once: true });

      // Output: both streams share one budget, and go out terminal-safe: a script that prints a
      // title from the service must not let that title act on the user's terminal.
      let forwarded = 0;
      let cutNoted = false;
      const emit = (text: string): void => {
        if (!text) return;
        try {
          options.output(terminalSafe(text));
        } catch {
          // Where the output goes is the caller's concern; it must not fail the delivery.
        }
      };
      /** Each stream's last line so far, held until its newline comes (bounded by the budget). */
      class Lines {
        private partial = '';
        readonly decoder = new StringDecoder('utf8');
        add(text: string): void {
          const all = this.partial + text;
          const end = all.lastIndexOf('\n') + 1;
          this.partial = all.slice(end);
          emit(all.slice(0, end));
        }
        flush(): void {
          if (this.partial) emit(`${this.partial}\n`);
          this.partial = '';
        }
      }
      const forward = (lines: Lines) => (chunk: Buffer) => {
        if (finished) return;
        const room = MAX_EXEC_OUTPUT_BYTES - forwarded;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          forwarded += part.length;
          lines.add(lines.decoder.write(part));
        }
        if (chunk.length > room && !cutNoted) {
          cutNoted = true;
          out.flush();
          err.flush();
          emit(`… output cut at ${MAX_EXEC_OUTPUT_BYTES / 1024} KiB\n`);
        }
      };
      const out = new Lines();
      const err = new Lines();
      child.stdout?.on('data', forward(out));
      child.stderr?.on('data', forward(err));

      // A command that does not read its stdin closes the pipe (EPIPE; EOF on Windows): not a failure.
      child.stdin?.on('error', () => {});
      child.stdin?.end(`${envelopeJson(delivery.envelope)}\n`);

      function finish(): void {
        if (finished) return;
        finished = true;
        clearTimeout(drainTimer);
        clearTimeout(giveUpTimer);
        if (!cutNoted) {
          out.add(out.decoder.end());
          err.add(err.decoder.end());
          out.flush();
          err.flush();
        }
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdin?.destroy();
        running.delete(entry);
        markExited();
        if (timedOut) {
          settle(new DeliveryError(`${label} ran past its timeout of ${options.timeoutMs} ms`, false));
        } else if (exit === undefined) {
          settle(new DeliveryError(`${label} did not exit`, false));
        } else if (exit.code === 0) {
          settle();
        } else if (exit.code !== null) {
          settle(new DeliveryError(`${label} exited with code ${exit.code}`, false));
        } else {
          settle(new DeliveryError(`${label} was ended by ${exit.signal ?? 'a signal'}`, false));
        }
      }

      child.on('error', (error) => {
        // Also emitted when a kill fails; only a child that never started ends the run here.
        if (child.pid !== undefined || exit !== undefined) return;
        clearTimeout(killTimer);
        finished = true;
        running.delete(entry);
        markExited();
        settle(new DeliveryError(`${label} could not start: ${reasonOf(error)}`, false));
      });
      child.on('exit', (code, exitSignal) => {
        exit = { code, signal: exitSignal };
        drainTimer = setTimeout(finish, PIPE_DRAIN_MS);
      });
      child.on('close', (code, exitSignal) => {
        exit ??= { code, signal: exitSignal };
        finish();
      });
    });
  }

  return {
    label,
    deliver: runOnce,
    flush: async () => {},
    async close() {
      closed = true;
      if (running.size === 0) return;
      const children = [...running];
      for (const child of children) child.terminate();
      // Every child ends within killGraceMs * 2 (terminate's own bound); wait no longer.
      await Promise.all(children.map((child) => child.exited));
    },
  };
}
