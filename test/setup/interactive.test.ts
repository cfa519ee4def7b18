/** setup at a terminal: the numbered list, the base URL question and the hidden key, in-process with a fake TTY. */

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSetup, type SetupFacts } from '../../src/commands/setup.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
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

/** Answers each question as it appears on stderr, like a person would. */
function terminal(answers: [RegExp, string][]) {
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
        setImmediate(() => stdin.write(next[1]));
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

  it('Ctrl-C at the key prompt cancels: nothing written, exit 1', async () => {
    const home = tempFolder('mf-setup-tty-');
    const t = terminal([[/API key/, '\u0003']]);
    const code = await runSetup({ client: ['cursor'], baseUrl: sandbox.url }, t.io, facts(home, t.stdin));
    expect(code).toBe(1);
    expect(t.err()).toContain('cancelled; nothing was written.');
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });
});

describe('prompt pieces', () => {
  it('parses the numbered choice', () => {
    expect(parseChoice('', 8, [2, 5])).toEqual([2, 5]);
    expect(parseChoice('1, 3 3', 8, [])).toEqual([0, 2]);
    expect(parseChoice('all', 3, [])).toEqual([0, 1, 2]);
    expect(parseChoice('9', 8, [])).toBeUndefined();
    expect(parseChoice('cursor', 8, [])).toBeUndefined();
  });

  it('reads a hidden line from a pasted chunk, and the first piped line', async () => {
    const tty = new FakeTty();
    const shown: string[] = [];
    const typed = readHidden(tty, (t) => shown.push(t), 'key: ');
    tty.write('secret-key\r');
    expect(await typed).toBe('secret-key');
    expect(shown.join('')).toBe('key: \n');
    const pipe = new PassThrough();
    pipe.end('  piped-key \nsecond line\n');
    expect(await readPipedLine(pipe)).toBe('piped-key');
  });
});
