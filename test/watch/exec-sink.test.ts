/** The exec sink against real child processes: stdin, environment, exit codes, timeouts, groups. */

import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/api/schemas.js';
import { DeliveryError } from '../../src/errors.js';
import { envelopeJson } from '../../src/feed/envelope.js';
import type { MarkedDelivery } from '../../src/watch/news.js';
import { createExecSink, type ExecSinkOptions, MAX_EXEC_OUTPUT_BYTES } from '../../src/watch/sinks/exec.js';
import type { Sink } from '../../src/watch/sinks/sink.js';
import { changeEvent, failure } from '../fixtures.js';
import { newDelivery } from './marked.js';

const { ChangeEvent: ChangeEventSchema } = apiSchemas();

function delivery(overrides: Record<string, unknown> = {}): MarkedDelivery {
  const data = changeEvent(overrides);
  return newDelivery(data, ChangeEventSchema.parse(data), new Date('2024-08-07T00:00:00Z'));
}

/** A path quoted for /bin/sh. */
const sh = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** True while `pid` runs; a zombie (nobody reaps it in some containers) counts as gone. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !existsSync('/proc/self');
  }
}

/** Polls `check` every 20 ms until it holds or `ms` have passed; returns whether it held. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited <= ms; waited += 20) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

async function pidFrom(path: string): Promise<number> {
  expect(await eventually(() => existsSync(path) && readFileSync(path, 'utf8').trim() !== '', 5000)).toBe(
    true,
  );
  return Number(readFileSync(path, 'utf8').trim());
}

let dir: string;
let output: string[];
const sinks: Sink[] = [];
const started: number[] = [];

function execSink(command: string, overrides: Partial<ExecSinkOptions> = {}): Sink {
  const sink = createExecSink({
    command,
    timeoutMs: 5000,
    env: process.env,
    output: (chunk) => output.push(chunk),
    ...overrides,
  });
  sinks.push(sink);
  return sink;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-feed-exec-'));
  output = [];
});

afterEach(async () => {
  await Promise.all(sinks.splice(0).map((sink) => sink.close()));
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  await rm(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;

describe('exec sink', () => {
  it('gives the command the envelope on stdin and the change in its environment, never the secrets', async () => {
    const script = join(dir, 'capture.cjs');
    const out = join(dir, 'captured.json');
    await writeFile(
      script,
      `const fs = require('node:fs');
       let input = '';
       process.stdin.setEncoding('utf8');
       process.stdin.on('data', (c) => { input += c; });
       process.stdin.on('end', () => fs.writeFileSync(process.argv[2], JSON.stringify({ input, env: process.env })));`,
    );
    const sink = execSink(`${sh(process.execPath)} ${sh(script)} ${sh(out)}`, {
      env: {
        ...process.env,
        MODEL_FEED_API_KEY: 'mf_live_secret',
        MODEL_FEED_WEBHOOK_SECRET: 'whsec_secret',
        model_feed_api_key: 'mf_lower_case',
        MODEL_FEED_EVENT_ID: 'stale',
        KEEP_ME: 'kept',
      },
    });
    const change = delivery();

    await sink.deliver(change, never);

    const captured = JSON.parse(await readFile(out, 'utf8')) as {
      input: string;
      env: Record<string, string>;
    };
    expect(captured.input).toBe(`${envelopeJson(change.envelope)}\n`);
    expect(JSON.parse(captured.input)).toEqual(change.envelope);
    expect(captured.env.MODEL_FEED_EVENT_ID).toBe('00000000-0000-4000-8000-000000000001');
    expect(captured.env.MODEL_FEED_EVENT_TYPE).toBe('price_change');
    expect(captured.env.MODEL_FEED_MODEL).toBe('openai');
    expect(captured.env.KEEP_ME).toBe('kept');
    const names = Object.keys(captured.env).map((name) => name.toUpperCase());
    expect(names).not.toContain('MODEL_FEED_API_KEY');
    expect(names).not.toContain('MODEL_FEED_WEBHOOK_SECRET');
    expect(JSON.stringify(captured.env)).not.toMatch(/secret|mf_lower_case/);
  });

  it('keeps control characters, escape sequences and bidi marks from the service out of the environment', async () => {
    const out = join(dir, 'env.txt');
    const sink = execSink(
      `printf '%s\\n%s\\n%s' "$MODEL_FEED_EVENT_ID" "$MODEL_FEED_EVENT_TYPE" "$MODEL_FEED_MODEL" > ${sh(out)}`,
    );
    const id = 'evt\u0000-1\u001b[31m\nX\u009b2J';
    const change = delivery({
      id,
      eventType: 'price\u0007_change\r\u001b]0;pwned\u0007',
      model: { slug: `open\u202eai${'x'.repeat(5000)}` },
    });

    await sink.deliver(change, never);

    const [eventId, eventType, model] = (await readFile(out, 'utf8')).split('\n');
    expect(eventId).toBe('evt-1 X');
    expect(eventType).toBe('price_change ');
    expect(model).toMatch(/^openaix+$/);
    expect(model!.length).toBe(1000);
    // The envelope on stdin keeps the service's values exactly (as JSON escapes).
    expect((JSON.parse(envelopeJson(change.envelope)) as { data: { id: string } }).data.id).toBe(id);
  });

  it('fails the delivery on a non-zero exit, naming the code and the command', async () => {
    const sink = execSink('exit 3');
    const error = await failure(sink.deliver(delivery(), never));
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).permanent).toBe(false);
    expect((error as DeliveryError).message).toBe('exec exit … exited with code 3');

    const missing = await failure(execSink('no-such-command-model-feed').deliver(delivery(), never));
    expect(missing).toBeInstanceOf(DeliveryError);
    expect((missing as Error).message).toMatch(/exited with code 127/);
  });

  it('fails the delivery when the command is ended by a signal', async () => {
    const error = await failure(execSink('kill -KILL $$').deliver(delivery(), never));
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as Error).message).toMatch(/was ended by SIGKILL/);
  });

  it('lets the follower retry: a command that fails once, then succeeds', async () => {
    const state = join(dir, 'tried');
    const sink = execSink(`if [ -f ${sh(state)} ]; then exit 0; else touch ${sh(state)}; exit 1; fi`);
    const change = delivery();

    expect(await failure(sink.deliver(change, never))).toBeInstanceOf(DeliveryError);
    await expect(sink.deliver(change, never)).resolves.toBeUndefined();
  });

  it('does not fail when the command leaves its stdin unread', async () => {
    const sink = execSink('exit 0');
    await expect(
      sink.deliver(delivery({ summary: 'x'.repeat(1024 * 1024) }), never),
    ).resolves.toBeUndefined();
  });

  it('ends the whole process group on timeout, SIGKILL for what ignores SIGTERM', async () => {
    const pidFile = join(dir, 'pid');
    // The shell and its background child both ignore SIGTERM: only the SIGKILL a second later ends them.
    const sink = execSink(`trap '' TERM; sleep 30 & echo $! > ${sh(pidFile)}; wait`, { timeoutMs: 500 });
    const started_at = Date.now();

    const error = await failure(sink.deliver(delivery(), never));

    const elapsed = Date.now() - started_at;
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as Error).message).toMatch(/ran past its timeout of 500 ms/);
    // Not 30 s of `sleep`: a sink that waited for it would pass the test's own bound and fail.
    expect(elapsed).toBeGreaterThanOrEqual(500);
    const pid = await pidFrom(pidFile);
    started.push(pid);
    expect(await eventually(() => !isRunning(pid), 500)).toBe(true);
  });

  it('ends a timed-out command promptly when it obeys SIGTERM', async () => {
    const pidFile = join(dir, 'pid');
    // A minute before SIGKILL: a sink that waited for it, or for `sleep`, would pass the bound by far.
    const sink = execSink(`sleep 30 & echo $! > ${sh(pidFile)}; wait`, {
      timeoutMs: 300,
      killGraceMs: 60_000,
    });
    const started_at = Date.now();

    expect(await failure(sink.deliver(delivery(), never))).toBeInstanceOf(DeliveryError);

    expect(Date.now() - started_at).toBeLessThan(15_000);
    const pid = await pidFrom(pidFile);
    started.push(pid);
    expect(await eventually(() => !isRunning(pid), 500)).toBe(true);
  });

  it('on shutdown (abort) ends the process group and rejects with the reason', async () => {
    const pidFile = join(dir, 'pid');
    const sink = execSink(`sleep 30 & echo $! > ${sh(pidFile)}; wait`, { timeoutMs: 60_000 });
    const controller = new AbortController();
    const reason = new Error('shutting down');

    const pending = failure(sink.deliver(delivery(), controller.signal));
    const pid = await pidFrom(pidFile);
    started.push(pid);
    controller.abort(reason);

    expect(await pending).toBe(reason);
    expect(await eventually(() => !isRunning(pid), 1500)).toBe(true);
  });

  it('does not start the command when the signal has aborted already', async () => {
    const marker = join(dir, 'ran');
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);

    expect(await failure(execSink(`touch ${sh(marker)}`).deliver(delivery(), controller.signal))).toBe(
      reason,
    );
    await sleep(100);
    expect(existsSync(marker)).toBe(false);
  });

  it('ends a command still running when closed', async () => {
    const pidFile = join(dir, 'pid');
    const sink = execSink(`sleep 30 & echo $! > ${sh(pidFile)}; wait`, { timeoutMs: 60_000 });

    const pending = failure(sink.deliver(delivery(), never));
    const pid = await pidFrom(pidFile);
    started.push(pid);
    await sink.close();

    expect(await pending).toBeInstanceOf(DeliveryError);
    expect(await eventually(() => !isRunning(pid), 500)).toBe(true);
    expect(await failure(sink.deliver(delivery(), never))).toBeInstanceOf(DeliveryError);
  });

  it('forwards stdout and stderr, terminal-safe', async () => {
    const sink = execSink(`echo out; echo err >&2; printf '\\033]0;pwned\\007\\033[2Jsafe\\n'`);
    await sink.deliver(delivery(), never);
    const text = output.join('');
    expect(text).toContain('out\n');
    expect(text).toContain('err\n');
    expect(text).toContain('safe\n');
    expect(text).not.toMatch(/[\x1b\x07]|pwned/);
  });

  it('hands on whole lines only, so they can be written around the status line', async () => {
    const sink = execSink(`printf 'one\\ntw'; sleep 0.1; printf 'o\\nthree'`);
    await sink.deliver(delivery(), never);
    expect(output.join('')).toBe('one\ntwo\nthree\n');
    for (const lines of output) expect(lines.endsWith('\n')).toBe(true);
  });

  it('bounds the output of one run', async () => {
    const sink = execSink(`head -c 200000 /dev/zero | tr '\\000' a`);
    await sink.deliver(delivery(), never);
    const text = output.join('');
    expect(text).toMatch(/^a+\n… output cut at 64 KiB\n$/);
    expect(text.match(/^a+/)![0]).toHaveLength(MAX_EXEC_OUTPUT_BYTES);
  });

  it('labels the sink with the program only (arguments may hold a token), cut and terminal-safe', () => {
    expect(execSink('./notify.sh').label).toBe('exec ./notify.sh');
    expect(execSink(`curl -H 'Authorization: Bearer tok_123456789'`).label).toBe('exec curl …');
    const long = execSink(`\u001b[31m${'y'.repeat(100)} arg`).label;
    expect(long).toBe(`exec ${'y'.repeat(59)}… …`);
    expect(long).not.toContain('\u001b');
  });
});
