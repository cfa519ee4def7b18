/**
 * The server typed at a terminal: it says, on stderr, that it waits for an MCP client and what to
 * run instead; started by a client (stdin a pipe), it says nothing of the kind.
 */

import { describe, expect, it } from 'vitest';
import { spawnPty } from '../support/pty.js';
import { BIN, INITIALIZE, NODE, scrubbedEnv, spawnRaw } from './harness.js';

describe('the server started at a terminal', () => {
  it('says what it waits for, and what to run from a shell', async () => {
    const pty = spawnPty([NODE, BIN, '--sandbox'], { env: scrubbedEnv() });
    try {
      const shown = await pty.waitFor('model-feed-mcp setup');
      expect(shown).toContain('it waits here for an MCP client to speak JSON-RPC on stdin');
      expect(shown).toContain('model-feed-mcp call search_models --vendor openai --source public');
    } finally {
      await pty.close();
    }
  });

  it('started by a client, writes no hint: stdin is a pipe', async () => {
    const raw = spawnRaw(scrubbedEnv(), ['--sandbox']);
    try {
      raw.send(INITIALIZE);
      await raw.answer(0);
      expect(raw.stderr()).not.toContain('waits here for an MCP client');
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});
