/** setup at a terminal: the numbered list, the base URL question and the hidden key, in-process with a fake TTY. */

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SetupFacts } from '../../src/commands/setup/facts.js';
import { runSetup } from '../../src/commands/setup/run.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { parseChoice, readHidden, readPipedLine } from '../../src/setup/prompt.js';
import { tempFolder } from '../support/temp.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

class FakeTty extends PassThrough {
  isTTY = true;
  rawModes: boolean[] = [];
  setRawMode(mode: boolean): this {
    this.rawModes.push(mode);
    return this;
  }
}

/** Answers each question as it appears on stderr, like a person would; null ends the input (Ctrl-D). */
function terminal(answers: [RegExp, string | null][]) {
  const stdin = new FakeTty();
  let err = '';
  let out = '';
  const io = {
    stdout: (t: string) => {
      out += t;
    },
    stderr: (t: string) => {
      err += t;
      const next = answers[0];
      if (next?.[0].test(t)) {
        answers.shift();
        setImmediate(() => (next[1] === null ? stdin.end() : stdin.write(next[1])));
      }
    },
    env: {},
  };
  return { stdin, io, err: () => err, out: () => out };
}

function facts(home: string, stdin: FakeTty): SetupFacts {
  return {
    platform: 'linux',
    home,
    script: '/opt/model-feed-mcp/bin/model-feed-mcp.cjs',
    nodePath: '/usr/bin/node',
    stdin,
    now: () => new Date('2026-01-02T03:04:05Z'),
    isFile: () => false,
    exists: existsSync,
    runProgram: async () => ({ code: 1, output: 'not expected' }),
    loadFormats: () => import('../../src/setup/formats.js'),
  };
}

describe('setup at a terminal', () => {
  it('lists the clients (found ones marked), asks for the base URL and the key without echo, then writes', async () => {
    const home = tempFolder('mf-setup-tty-');
    mkdirSync(join(home, '.cursor'));
    const t = terminal([
      [/Configure which\?/, 'x\n'],
      [/Type numbers from 1 to 8/, '\n'],
      [/Service base URL/, `${sandbox.url}\n`],
      [/API key .*not shown/, `${sandbox.key}x\u007f\r`],
    ]);
    const code = await runSetup({}, t.io, facts(home, t.stdin));
    expect(t.err()).toContain('3. * Cursor');
    expect(t.err()).toContain('4.   VS Code');
    expect(t.err()).not.toContain(sandbox.key);
    expect(t.stdin.rawModes).toEqual([true, false]);
    expect(code).toBe(0);
    expect(t.out()).toContain('Cursor: added model-feed to');
    const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8'));
    expect(written.mcpServers['model-feed']).toEqual({
      command: '/usr/bin/node',
      args: ['/opt/model-feed-mcp/bin/model-feed-mcp.cjs'],
      env: { MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url },
    });
  });

  it('Ctrl-C at the key prompt stops setup as SIGINT does at the other prompts: nothing written, exit 130', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([[/API key/, '\u0003']]);
    const code = await runSetup({ client: ['cursor'], baseUrl: sandbox.url }, t.io, facts(home, t.stdin));
    expect(code).toBe(130);
    expect(t.err()).toContain('stopped by SIGINT; nothing was written.');
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });
});

describe('answers judged where they are typed', () => {
  it('a key the service rejects is asked for again, and the next one is used', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([
      [/API key/, 'mfsk_wrong_key_0000000000000000\r'],
      [/Type or paste it again/, ''],
      [/API key/, `${sandbox.key}\r`],
    ]);
    const code = await runSetup({ client: ['cursor'], baseUrl: sandbox.url }, t.io, facts(home, t.stdin));
    expect(code, t.err()).toBe(0);
    expect(t.err()).toContain(
      'The service rejected the key you typed (HTTP 401). The service said: "API key not accepted',
    );
    expect(t.err()).not.toContain('mfsk_wrong_key');
    // Not the advice for a variable the user never set.
    expect(t.err()).not.toContain('MODEL_FEED_API_KEY');
    const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8'));
    expect(written.mcpServers['model-feed'].env.MODEL_FEED_API_KEY).toBe(sandbox.key);
  });

  it('a key with quotes around it is refused before the service is asked', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([
      [/API key/, `"${sandbox.key}"\r`],
      [/quote mark/, ''],
      [/API key/, `${sandbox.key}\r`],
    ]);
    const code = await runSetup({ client: ['cursor'], baseUrl: sandbox.url }, t.io, facts(home, t.stdin));
    expect(code, t.err()).toBe(0);
    expect(t.err().match(/Checking the key/g)).toHaveLength(1);
  });

  it('a mistyped client name at the list gets the number of the closest; names are taken too', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([
      [/Configure which\?/, 'cursr\n'],
      [/Not a choice/, ''],
      [/Configure which\?/, 'cursor\n'],
      [/Service base URL/, `${sandbox.url}\n`],
      [/API key/, `${sandbox.key}\r`],
    ]);
    const code = await runSetup({}, t.io, facts(home, t.stdin));
    expect(code, t.err()).toBe(0);
    expect(t.err()).toContain(
      'Not a choice: "cursr". Type numbers from 1 to 8 (3 is Cursor), separated by commas, or all.',
    );
    expect(t.out()).toContain('Cursor: added model-feed to');
  });

  it('three unusable answers in a row: exit 2, naming the question and how to skip it', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([
      [/Configure which\?/, '9\n'],
      [/Configure which\?/, 'x\n'],
      [/Configure which\?/, '0\n'],
    ]);
    const code = await runSetup({}, t.io, facts(home, t.stdin));
    expect(code).toBe(2);
    expect(t.err()).toContain('Not a choice: "9".');
    expect(t.err()).toContain(
      'model-feed-mcp setup: no usable choice of clients after 3 answers; nothing was written. Run setup again, or name them with --client <name>.',
    );
  });

  it('input that ends before an answer: exit 2, nothing written', async () => {
    const home = tempFolder('mf-setup-tty-');
    for (const [question, flags] of [
      [/Service base URL/, { client: ['cursor'] }],
      [/API key/, { client: ['cursor'], baseUrl: sandbox.url }],
    ] as const) {
      const t = terminal([[question, null]]);
      const code = await runSetup({ ...flags, client: [...flags.client] }, t.io, facts(home, t.stdin));
      expect(code).toBe(2);
      expect(t.err()).toContain(
        'model-feed-mcp setup: input ended before the questions were answered; nothing was written.',
      );
      expect(existsSync(join(home, '.cursor'))).toBe(false);
    }
  });
});

describe('prompt pieces', () => {
  it('parses the numbered choice', () => {
    expect(parseChoice('', 8, [2, 5])).toEqual([2, 5]);
    expect(parseChoice('1, 3 3', 8, [])).toEqual([0, 2]);
    expect(parseChoice('all', 3, [])).toEqual([0, 1, 2]);
    expect(parseChoice('9', 8, [])).toBeUndefined();
    expect(parseChoice('cursor', 8, [])).toBeUndefined();
    const named = (word: string) => ({ cursor: 2, codex: 5 })[word];
    expect(parseChoice('codex, 1 Cursor', 8, [], named)).toEqual([0, 2, 5]);
    expect(parseChoice('cursor notepad', 8, [], named)).toBeUndefined();
    // A name with a space, as the list shows it, is one name.
    const listed = (word: string) => ({ 'vs code': 3, cursor: 2 })[word];
    expect(parseChoice('VS Code, 1', 8, [], listed)).toEqual([0, 3]);
    expect(parseChoice('cursor 1', 8, [], listed)).toEqual([0, 2]);
  });

  it('reads a hidden line from a pasted chunk, and the first piped line', async () => {
    const tty = new FakeTty();
    const shown: string[] = [];
    const typed = readHidden(tty, (t) => shown.push(t), 'key: ');
    tty.write('secret-key\r');
    expect(await typed).toEqual({ text: 'secret-key', specialKeys: false });
    expect(shown.join('')).toBe('key: \n');
    const pipe = new PassThrough();
    pipe.end('  piped-key \nsecond line\n');
    expect(await readPipedLine(pipe)).toBe('piped-key');
  });
});
