/** The closest client name for a mistyped `--client`, and the advice setup ends with: pure. */

import { describe, expect, it } from 'vitest';
import { CLIENTS, closestClientName, findClient, nextSteps } from '../../src/setup/clients/index.js';

describe('client names and the advice at the end', () => {
  it('offers the closest client name, alias or id, and none for a word like no client', () => {
    expect(closestClientName('cursr')).toBe('cursor');
    expect(closestClientName('Curosr')).toBe('cursor');
    expect(closestClientName('claude-dekstop')).toBe('claude-desktop');
    expect(closestClientName('windsurfer')).toBe('windsurf');
    expect(closestClientName('gemini-cl')).toBe('gemini-cli');
    expect(closestClientName('notepad')).toBeUndefined();
    // Two edits from "code", but not a client anyone meant.
    expect(closestClientName('none')).toBeUndefined();
    expect(closestClientName('vscod')).toBe('vscode');
  });

  it('finds a client by the name the list shows, spaces and case as typed', () => {
    expect(findClient('VS Code')?.id).toBe('vscode');
    expect(findClient('gemini cli')?.id).toBe('gemini');
    expect(findClient('Claude Desktop')?.id).toBe('claude-desktop');
  });

  it('advises only for the clients configured, each once', () => {
    const client = (name: string) => findClient(name)!;
    expect(nextSteps([client('cursor')], 'model-feed')).toBe('Next, to load model-feed: restart Cursor.');
    expect(nextSteps([client('codex'), client('zed')], 'model-feed')).toBe(
      'Next, to load model-feed: start a new Codex session; restart Zed.',
    );
    expect(nextSteps([], 'model-feed')).toBeUndefined();
    const all = nextSteps(CLIENTS, 'model-feed')!;
    expect(all).toContain('quit Claude Desktop fully');
    expect(all).toContain('restart VS Code, which asks for the key the first time the server starts');
  });
});
