/**
 * `model-feed-mcp setup` as a person at a terminal meets it (issue 22 item 6): the built CLI on a
 * fake HOME and a sandbox on port 0 that checks the key. The advice at the end names only the
 * clients configured; a mistyped `--client` gets the closest name.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempFolder } from '../support/temp.js';
import { run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

/** A user's shell: HOME of its own, no key, no base URL, and a PATH without any real `claude`. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return scrubbedEnv({ HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb', ...extra });
}

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
