/**
 * `setup` at a terminal where a newcomer gets stuck, the built CLI on a pseudo-terminal against a
 * sandbox on port 0: special keys at the hidden prompt, a quoted or wrong base URL, Ctrl-C and
 * Ctrl-U, VS Code's base URL, and help that points where an `npx` user can read it.
 */

import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { spawnPty } from '../support/pty.js';
import { tempFolder } from '../support/temp.js';
import { MOUNTED_TREE, runAsNobody } from './as-nobody.js';
import { BIN, NODE, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
/** A web server that is not the service: every path is 404, as a wrong base URL meets it. */
let notTheService: Server;
let notTheServiceUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  notTheService = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => notTheService.listen(0, '127.0.0.1', resolve));
  notTheServiceUrl = `http://127.0.0.1:${(notTheService.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => notTheService.close(resolve));
});

function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb', ...extra });
}

function cursorHome(): string {
  const home = tempFolder('mf-setup-newcomer-');
  mkdirSync(join(home, '.cursor'));
  return home;
}

describe('special keys at the hidden key prompt', () => {
  it('an arrow key typed into the key is refused as a special key, not sent and not blamed on the key', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor', '--base-url', sandbox.url], {
      env: envFor(home),
    });
    try {
      await pty.waitFor('API key');
      const from = pty.output().length;
      pty.type(`${sandbox.key}\x1b[D\r`);
      await pty.waitFor('an arrow key or another special key', { from });
      expect(pty.output().slice(from)).not.toContain('rejected the key');
      expect(pty.output().slice(from)).not.toContain('Checking the key');
      const again = pty.output().length;
      await pty.waitFor('API key', { from: again - 100 });
      pty.type(`\x1b[200~${sandbox.key}\x1b[201~\r`);
      await pty.waitFor('The service accepted the key.', { from: again });
      expect(await pty.exited).toBe(0);
    } finally {
      await pty.close();
    }
  });

  it('Ctrl-U clears the hidden line, as at a password prompt', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor', '--base-url', sandbox.url], {
      env: envFor(home),
    });
    try {
      await pty.waitFor('API key');
      pty.type(`garbage\x15${sandbox.key}\r`);
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

describe('Ctrl-C', () => {
  it.each([
    ['the choice of clients', [], 'Configure which?'],
    ['the base URL', ['--client', 'cursor'], 'Service base URL'],
    ['the hidden key', ['--client', 'cursor', '--base-url', 'SANDBOX'], 'API key'],
  ])('at %s: the same words and the same exit status, nothing written', async (_case, args, question) => {
    const home = cursorHome();
    const argv = args.map((a) => (a === 'SANDBOX' ? sandbox.url : a));
    const pty = spawnPty([NODE, BIN, 'setup', ...argv], { env: envFor(home) });
    try {
      await pty.waitFor(question);
      pty.type('\x03');
      await pty.waitFor('model-feed-mcp setup: stopped by SIGINT; nothing was written.');
      expect(await pty.exited).toBe(130);
      expect(existsSync(join(home, '.cursor/mcp.json'))).toBe(false);
    } finally {
      await pty.close();
    }
  });
});

describe('the base URL at its prompt', () => {
  it('a URL in quotes, as copied from a JSON or .env file, is taken without them', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], { env: envFor(home) });
    try {
      await pty.waitFor('Service base URL');
      pty.type(`"${sandbox.url}"\r`);
      await pty.waitFor('API key');
      pty.type(`${sandbox.key}\r`);
      await pty.waitFor('The service accepted the key.');
      expect(await pty.exited).toBe(0);
      const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8'));
      expect(written.mcpServers['model-feed'].env.MODEL_FEED_BASE_URL).toBe(sandbox.url);
    } finally {
      await pty.close();
    }
  });

  it('one that is not the service is asked again at once, before the key, naming what was typed', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], { env: envFor(home) });
    try {
      await pty.waitFor('Service base URL');
      let from = pty.output().length;
      pty.type(`${notTheServiceUrl}\r`);
      await pty.waitFor(`${notTheServiceUrl} did not answer as the service`, { from });
      await pty.waitFor('Service base URL', { from });
      expect(pty.output().slice(from)).not.toContain('API key');
      expect(pty.output()).not.toContain('MODEL_FEED_BASE_URL');
      from = pty.output().length;
      // Plain http spoken where https was typed: said as that, not as OpenSSL's words.
      const https = sandbox.url.replace('http://', 'https://');
      pty.type(`${https}\r`);
      await pty.waitFor(`${https} answers in plain http, not https`, { from });
      expect(pty.output().slice(from)).not.toContain('SSL routines');
      from = pty.output().length;
      pty.type(`${sandbox.url}\r`);
      await pty.waitFor('API key', { from });
      pty.type(`${sandbox.key}\r`);
      await pty.waitFor('The service accepted the key.');
      expect(await pty.exited).toBe(0);
    } finally {
      await pty.close();
    }
  });
});

describe('a base URL the service answers only once a key is given', () => {
  it('a wrong path typed at the prompt: named as what was typed, asked again, and the key typed is checked there', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--client', 'cursor'], { env: envFor(home) });
    try {
      await pty.waitFor('Service base URL');
      // The sandbox answers 401 before 404 to a request without a key, so the address passes.
      pty.type(`${sandbox.url}/mcf\r`);
      await pty.waitFor('API key');
      let from = pty.output().length;
      pty.type(`${sandbox.key}\r`);
      await pty.waitFor("The base URL you typed must be the service's base URL", { from });
      await pty.waitFor('Service base URL', { from });
      expect(pty.output()).not.toContain('MODEL_FEED_BASE_URL');
      expect(pty.output().slice(from)).not.toContain('Nothing was written');
      from = pty.output().length;
      pty.type(`${sandbox.url}\r`);
      await pty.waitFor('The service accepted the key.', { from });
      expect(pty.output().slice(from)).not.toContain('API key');
      expect(await pty.exited).toBe(0);
      const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8'));
      expect(written.mcpServers['model-feed'].env).toEqual({
        MODEL_FEED_API_KEY: sandbox.key,
        MODEL_FEED_BASE_URL: sandbox.url,
      });
    } finally {
      await pty.close();
    }
  });
});

describe('the choice of clients', () => {
  it('takes a client by the name the list shows ("vs code"), and offers no far-fetched guess for "none"', async () => {
    const home = cursorHome();
    const pty = spawnPty([NODE, BIN, 'setup', '--base-url', sandbox.url], { env: envFor(home) });
    try {
      await pty.waitFor('Configure which?');
      let from = pty.output().length;
      pty.type('none\r');
      await pty.waitFor('Not a choice: "none". Type numbers from 1 to 8, separated by commas, or all.', {
        from,
      });
      from = pty.output().length;
      pty.type('vs code\r');
      await pty.waitFor('Command:', { from });
      expect(pty.output().slice(from)).not.toContain('Not a choice');
      expect(await pty.exited).toBe(0);
      expect(readFileSync(join(home, '.config/Code/User/mcp.json'), 'utf8')).toContain(sandbox.url);
    } finally {
      await pty.close();
    }
  });
});

describe('VS Code, which asks for the key itself', () => {
  it('gets its base URL checked all the same: nothing written to an address that is not the service', async () => {
    const home = tempFolder('mf-setup-newcomer-');
    const result = await run(['setup', '--client', 'vscode', '--base-url', notTheServiceUrl], envFor(home));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${notTheServiceUrl} did not answer as the service`);
    expect(result.stderr).toContain('Correct --base-url and run setup again.');
    expect(result.stderr).not.toContain('MODEL_FEED_BASE_URL must');
    expect(existsSync(join(home, '.config/Code/User/mcp.json'))).toBe(false);
  });

  it('a base URL that is the service is written, with no key asked', async () => {
    const home = tempFolder('mf-setup-newcomer-');
    const result = await run(['setup', '--client', 'vscode', '--base-url', sandbox.url], envFor(home));
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(home, '.config/Code/User/mcp.json'), 'utf8')).toContain(sandbox.url);
  });
});

describe('help an npx user can open', () => {
  const repository = (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      repository?: { url?: string };
    }
  ).repository?.url;

  it('setup --help points at the repository named in package.json, not at docs/ (which is not published)', async () => {
    expect(repository).toMatch(/^git\+https:\/\/github\.com\//);
    const web = repository!.replace(/^git\+/, '').replace(/\.git$/, '');
    for (const command of ['setup', 'watch', 'check']) {
      const result = await run([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/See docs\//);
      expect(result.stdout.replace(/\s+/g, '')).toContain(`${web}/blob/main/docs/${command}.md`);
    }
  });

  it('setup --help names the exit status of Ctrl-C, the same at every prompt', async () => {
    const result = await run(['setup', '--help']);
    expect(result.stdout).toContain('130 Ctrl-C at any prompt');
    expect(result.stdout).toContain('the base URL given is not the service');
  });
});

describe('a client folder this user cannot write (as nobody)', () => {
  it('is named as the cause, not the file, which could be written', async () => {
    const NOBODY = 65534;
    const tree = tempFolder('mf-setup-newcomer-');
    chmodSync(tree, 0o755);
    const cursor = join(tree, '.cursor');
    mkdirSync(cursor);
    writeFileSync(join(cursor, 'mcp.json'), '{}\n', { mode: 0o600 });
    chownSync(join(cursor, 'mcp.json'), NOBODY, NOBODY);
    chownSync(cursor, NOBODY, NOBODY);
    chmodSync(cursor, 0o555);
    const result = await runAsNobody(
      ['setup', '--client', 'cursor', '--base-url', sandbox.url],
      scrubbedEnv({ HOME: MOUNTED_TREE, MODEL_FEED_API_KEY: sandbox.key }),
      tree,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `Cursor: cannot write ${MOUNTED_TREE}/.cursor/mcp.json: its folder ${MOUNTED_TREE}/.cursor does not let this user create files in it (EACCES); left it alone. Check the folder's owner and mode, or run setup as the user whose folder it is.`,
    );
    expect(readFileSync(join(cursor, 'mcp.json'), 'utf8')).toBe('{}\n');
  });
});
