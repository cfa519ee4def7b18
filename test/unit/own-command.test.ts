import { afterEach, describe, expect, it } from 'vitest';
import { nameCommandsFor, ownCommand, ranThroughNpx } from '../../src/own-command.js';

describe('ownCommand', () => {
  afterEach(() => nameCommandsFor({ env: {}, script: undefined }));

  it('names the bare command for a copy started by its name, and before any entry decided', () => {
    expect(ownCommand('doctor')).toBe('model-feed-mcp doctor');
    nameCommandsFor({ env: {}, script: '/usr/local/lib/node_modules/model-feed-mcp/bin/model-feed-mcp.cjs' });
    expect(ownCommand('doctor')).toBe('model-feed-mcp doctor');
    expect(ownCommand()).toBe('model-feed-mcp');
  });

  it('names npx for a copy npx started, by its variable or its cache folder', () => {
    nameCommandsFor({ env: { npm_command: 'exec' }, script: undefined });
    expect(ownCommand('doctor')).toBe('npx -y model-feed-mcp doctor');
    const cached = { env: {}, script: '/home/me/.npm/_npx/0a1b/node_modules/.bin/model-feed-mcp' };
    expect(ranThroughNpx(cached)).toBe(true);
    nameCommandsFor(cached);
    expect(ownCommand('setup')).toBe('npx -y model-feed-mcp setup');
  });

  it('an npm script is not npx: its project has the package installed', () => {
    nameCommandsFor({ env: { npm_command: 'run-script' }, script: undefined });
    expect(ownCommand('doctor')).toBe('model-feed-mcp doctor');
  });
});
