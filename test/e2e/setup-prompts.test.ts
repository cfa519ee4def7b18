/**
 * What `setup` says back at its visible prompts, the built CLI on a pseudo-terminal: a key typed
 * where the base URL is asked is neither quoted back nor offered as a host name.
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { spawnPty } from '../support/pty.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

describe('a key typed at the base-URL prompt', () => {
  it('is refused as a key, shown only by the terminal echoing the typing, and not offered as https://<key>', async () => {
    const home = tempFolder('mf-setup-prompts-');
    mkdirSync(join(home, '.cursor'));
    // The sandbox's keys are 16 characters of letters, digits and a dash, like this one.
    const typed = 'someKey-12345678';
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], {
      env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
    });
    try {
      await pty.waitFor('Service base URL');
      const from = pty.output().length;
      pty.type(`${typed}\r`);
      await pty.waitFor('That looks like an API key, not a URL (not shown).', { from });
      await pty.waitFor('Service base URL', { from });
      const after = pty.output().slice(from).toLowerCase();
      // Once: the terminal's own echo of the line as it was typed.
      expect(after.split(typed.toLowerCase())).toHaveLength(2);
      expect(after).not.toContain('enter for');
    } finally {
      await pty.close();
    }
  });
});

describe('Ctrl-C at a line prompt', () => {
  it('stops setup saying nothing was written, by SIGINT, as at every prompt', async () => {
    const home = tempFolder('mf-setup-prompts-');
    mkdirSync(join(home, '.cursor'));
    const pty = spawnPty([NODE, BIN, 'setup'], {
      env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
    });
    try {
      await pty.waitFor('Configure which?');
      pty.type('\x03');
      await pty.waitFor('model-feed-mcp setup: stopped by SIGINT; nothing was written.');
      expect(await pty.exited).toBe(130);
    } finally {
      await pty.close();
    }
  });
});

describe('escape sequences at the hidden key prompt', () => {
  it.each([
    ['a bracketed paste (the terminal in paste mode)', (key: string) => `\x1b[200~${key}\x1b[201~\r`],
  ])('%s: the markers are not part of the key, which is accepted', async (_case, typing) => {
    const home = tempFolder('mf-setup-prompts-');
    mkdirSync(join(home, '.cursor'));
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor', '--base-url', sandbox.url], {
      env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
    });
    try {
      await pty.waitFor('API key');
      pty.type(typing(sandbox.key));
      await pty.waitFor('The service accepted the key.');
      expect(await pty.exited).toBe(0);
      expect(readFileSync(join(home, '.cursor/mcp.json'), 'utf8')).toContain(
        `"MODEL_FEED_API_KEY": "${sandbox.key}"`,
      );
    } finally {
      await pty.close();
    }
  });
});

describe('the last of three wrong keys', () => {
  it('gets no invitation to type it again: setup stops there', async () => {
    const home = tempFolder('mf-setup-prompts-');
    mkdirSync(join(home, '.cursor'));
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor', '--base-url', sandbox.url], {
      env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
    });
    try {
      for (let answer = 1; answer <= 3; answer++) {
        const from = pty.output().length;
        await pty.waitFor('API key', { from: answer === 1 ? 0 : from - 200 });
        pty.type(`wrong-key-00000000${answer}\r`);
        await pty.waitFor('rejected the key you typed', { from });
      }
      await pty.waitFor('no usable API key after 3 answers');
      expect(pty.output().split('Type or paste it again')).toHaveLength(3);
      expect(await pty.exited).toBe(2);
    } finally {
      await pty.close();
    }
  });
});

describe('--remove at a terminal', () => {
  it('asks which clients to remove model-feed from, not which to configure', async () => {
    const home = tempFolder('mf-setup-prompts-');
    mkdirSync(join(home, '.cursor'));
    const pty = spawnPty([NODE, BIN, 'setup', '--remove'], {
      env: scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' }),
    });
    try {
      await pty.waitFor('Remove model-feed from which?');
      pty.type('\r');
      expect(await pty.exited).toBe(0);
      expect(pty.output()).not.toContain('Configure which?');
    } finally {
      await pty.close();
    }
  });
});
