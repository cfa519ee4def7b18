/**
 * `model-feed-mcp setup` as a person at a terminal meets it: the built CLI on a pseudo-terminal, a
 * fake HOME, and a sandbox on port 0 that checks the key. Answers that cannot be used are refused
 * where they are typed and asked again; the advice at the end names only the clients configured; a
 * mistyped `--client` gets the closest name.
 */

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { spawnPty } from '../support/pty.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

/** A user's shell: HOME of its own, no key, no base URL, and a PATH without any real `claude`. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb', ...extra });
}

function cursorEntry(home: string): { env: Record<string, string> } {
  const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8')) as {
    mcpServers: Record<string, { env: Record<string, string> }>;
  };
  return written.mcpServers['model-feed']!;
}

describe('setup at a terminal (pty)', () => {
  it('a base URL typed without a scheme is refused where it is typed, http:// is offered for loopback, and Enter takes it', async () => {
    const home = tempFolder('mf-setup-pty-');
    mkdirSync(join(home, '.cursor'));
    const hostPort = new URL(sandbox.url).host; // 127.0.0.1:<port>, as the sandbox prints it
    const pty = spawnPty([NODE, BIN, 'setup'], { env: envFor(home) });
    try {
      await pty.waitFor('Configure which?');
      pty.type('\r'); // the clients found: Cursor
      await pty.waitFor('Service base URL');
      let from = pty.output().length;
      pty.type(`${hostPort}\r`);
      await pty.waitFor(`"${hostPort}" has no scheme`, { from });
      await pty.waitFor(`Service base URL [Enter for http://${hostPort}]: `, { from });
      // Still the base URL question, not the key: nothing else was asked in between.
      expect(pty.output().slice(from)).not.toContain('API key');
      from = pty.output().length;
      pty.type('\r');
      await pty.waitFor('API key', { from });
      pty.type(`${sandbox.key}\r`);
      await pty.waitFor('The service accepted the key.');
      expect(await pty.exited).toBe(0);
      const shown = pty.output();
      expect(shown).not.toContain(sandbox.key);
      expect(shown).not.toContain('--base-url');
      expect(shown).not.toContain('MODEL_FEED_BASE_URL');
      expect(shown).toContain('Cursor: added model-feed to');
      expect(cursorEntry(home).env).toEqual({
        MODEL_FEED_API_KEY: sandbox.key,
        MODEL_FEED_BASE_URL: `http://${hostPort}`,
      });
    } finally {
      await pty.close();
    }
  });

  it('answers that cannot be used are asked again, named terminal-safe; three in a row stop with exit 2 and nothing written', async () => {
    const home = tempFolder('mf-setup-pty-');
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], { env: envFor(home) });
    try {
      await pty.waitFor('Service base URL');
      let from = pty.output().length;
      pty.type('http://feed.example.com\r');
      await pty.waitFor(
        '"http://feed.example.com" uses plain http://, which would send the key in clear text',
        { from },
      );
      await pty.waitFor('Service base URL [Enter for https://feed.example.com]: ', { from });
      from = pty.output().length;
      // An escape sequence typed into the line (an arrow key, or worse) is refused, and the
      // message quotes the answer without it: nothing typed is sent back raw to the terminal.
      pty.type('https://feed\x1b[31m.example.com\r');
      await pty.waitFor('"https://feed.example.com" has control characters in it', { from });
      from = pty.output().length;
      pty.type('not a url\r');
      await pty.waitFor('"not a url" is not a URL', { from });
      await pty.waitFor('no usable base URL after 3 answers; nothing was written', { from });
      expect(await pty.exited).toBe(2);
      expect(pty.output()).not.toContain('\x1b[31m');
      expect(pty.output()).not.toContain('API key');
      expect(existsSync(join(home, '.cursor'))).toBe(false);
    } finally {
      await pty.close();
    }
  });

  it('Ctrl-D at a question ends the input: exit 2, nothing written', async () => {
    const home = tempFolder('mf-setup-pty-');
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], { env: envFor(home) });
    try {
      await pty.waitFor('Service base URL');
      pty.type('\x04');
      await pty.waitFor('input ended before the questions were answered; nothing was written.');
      expect(await pty.exited).toBe(2);
      expect(existsSync(join(home, '.cursor'))).toBe(false);
    } finally {
      await pty.close();
    }
  });
});

describe('advice that fits the clients configured', () => {
  it('only Cursor configured: the advice names Cursor, not Claude Desktop or VS Code', async () => {
    const home = tempFolder('mf-setup-advice-');
    const result = await run(
      ['setup', '--client', 'cursor'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Next, to load model-feed: restart Cursor.\n');
    expect(result.stderr).not.toContain('Claude Desktop');
    expect(result.stderr).not.toContain('VS Code');
  });

  it('Claude Desktop and VS Code configured: each gets its own advice', async () => {
    const home = tempFolder('mf-setup-advice-');
    const result = await run(
      ['setup', '--client', 'claude-desktop,vscode'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Next, to load model-feed: quit Claude Desktop fully (not just its window) and open it again; restart VS Code, which asks for the key the first time the server starts.\n',
    );
  });

  it('--client cursr: exit 2, offering the closest client name', async () => {
    const result = await run(['setup', '--client', 'cursr'], envFor(tempFolder('mf-setup-advice-')));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown client "cursr". Did you mean cursor? Known clients: claude-desktop, claude-code, cursor',
    );
  });
});
