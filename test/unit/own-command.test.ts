import { describe, expect, it } from 'vitest';
import { ownCommand, ranThroughNpx } from '../../src/own-command.js';

describe('ownCommand', () => {
  it('names the bare command for a copy started by its name', () => {
    const facts = { env: {}, script: '/usr/local/lib/node_modules/model-feed-mcp/bin/model-feed-mcp.cjs' };
    expect(ownCommand('doctor', facts)).toBe('model-feed-mcp doctor');
    expect(ownCommand('', facts)).toBe('model-feed-mcp');
  });

  it('names npx for a copy npx started, by its variable or its cache folder', () => {
    expect(ownCommand('doctor', { env: { npm_command: 'exec' }, script: undefined })).toBe(
      'npx -y model-feed-mcp doctor',
    );
    const cached = { env: {}, script: '/home/me/.npm/_npx/0a1b/node_modules/.bin/model-feed-mcp' };
    expect(ranThroughNpx(cached)).toBe(true);
    expect(ownCommand('setup', cached)).toBe('npx -y model-feed-mcp setup');
  });

  it('an npm script is not npx: its project has the package installed', () => {
    expect(ownCommand('doctor', { env: { npm_command: 'run-script' }, script: undefined })).toBe(
      'model-feed-mcp doctor',
    );
  });
});
