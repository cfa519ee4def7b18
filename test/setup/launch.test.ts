import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ranThroughNpx } from '../../src/own-command.js';
import { CLIENTS } from '../../src/setup/clients/index.js';
import { findOnPath, launchFor } from '../../src/setup/launch.js';

const npxScript = '/home/me/.npm/_npx/1a2b3c/node_modules/model-feed-mcp/bin/model-feed-mcp.cjs';

describe('the command written into client configs', () => {
  it('npx when run through npx; the plain name where a desktop app finds it', () => {
    const launch = launchFor({
      platform: 'linux',
      env: {},
      script: npxScript,
      nodePath: '/usr/bin/node',
      which: () => '/usr/bin/npx',
    });
    expect(launch).toMatchObject({ command: 'npx', args: ['-y', 'model-feed-mcp'], env: {} });
  });

  it('cmd /c npx on Windows', () => {
    const launch = launchFor({
      platform: 'win32',
      env: { npm_command: 'exec' },
      script: 'C:\\x\\model-feed-mcp.cjs',
      nodePath: 'C:\\node.exe',
      which: () => undefined,
    });
    expect(launch).toMatchObject({ command: 'cmd', args: ['/c', 'npx', '-y', 'model-feed-mcp'] });
  });

  it('npx by absolute path, its folder first on PATH, under nvm or Homebrew', () => {
    for (const npx of ['/Users/me/.nvm/versions/node/v22.1.0/bin/npx', '/opt/homebrew/bin/npx']) {
      const launch = launchFor({
        platform: 'darwin',
        env: {},
        script: npxScript,
        nodePath: '/x/node',
        which: () => npx,
      });
      expect(launch.command).toBe(npx);
      expect(launch.env.PATH?.split(':')[0]).toBe(npx.slice(0, -'/npx'.length));
    }
  });

  it('this copy by absolute path when run from a global install or a clone', () => {
    const launch = launchFor({
      platform: 'darwin',
      env: { npm_command: 'run-script' },
      script: '/opt/homebrew/lib/node_modules/model-feed-mcp/bin/model-feed-mcp.cjs',
      nodePath: '/opt/homebrew/bin/node',
      which: () => undefined,
    });
    expect(launch).toMatchObject({
      command: '/opt/homebrew/bin/node',
      args: ['/opt/homebrew/lib/node_modules/model-feed-mcp/bin/model-feed-mcp.cjs'],
    });
    expect(
      ranThroughNpx({ env: {}, script: 'C:\\Users\\me\\AppData\\Local\\npm-cache\\_npx\\ab\\x.cjs' }),
    ).toBe(true);
  });

  it('finds executables on PATH as a shell does, with PATHEXT on Windows', () => {
    const files = new Set(['/b/claude', 'C:\\tools\\claude.exe']);
    const isFile = (p: string) => files.has(p);
    expect(findOnPath('claude', { PATH: '/a:/b:relative' }, 'linux', isFile)).toBe('/b/claude');
    expect(findOnPath('claude', { Path: 'C:\\x;C:\\tools', PATHEXT: '.CMD;.EXE' }, 'win32', isFile)).toBe(
      'C:\\tools\\claude.exe',
    );
    expect(findOnPath('npx', { PATH: '/a' }, 'linux', isFile)).toBeUndefined();
  });
});

describe('where each client keeps its config', () => {
  const paths = (platform: NodeJS.Platform, home: string, env: Record<string, string> = {}) =>
    Object.fromEntries(CLIENTS.map((c) => [c.id, c.file({ platform, home, env })]));

  it('macOS', () => {
    expect(paths('darwin', '/Users/me')).toEqual({
      'claude-desktop': '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      'claude-code': '/Users/me/.claude.json',
      cursor: '/Users/me/.cursor/mcp.json',
      vscode: '/Users/me/Library/Application Support/Code/User/mcp.json',
      windsurf: '/Users/me/.codeium/windsurf/mcp_config.json',
      codex: '/Users/me/.codex/config.toml',
      gemini: '/Users/me/.gemini/settings.json',
      zed: '/Users/me/.config/zed/settings.json',
    });
  });

  it('Linux, with XDG_CONFIG_HOME and CODEX_HOME', () => {
    const found = paths('linux', '/home/me', { XDG_CONFIG_HOME: '/home/me/cfg', CODEX_HOME: '/srv/codex' });
    expect(found['claude-desktop']).toBe('/home/me/cfg/Claude/claude_desktop_config.json');
    expect(found.vscode).toBe('/home/me/cfg/Code/User/mcp.json');
    expect(found.zed).toBe('/home/me/cfg/zed/settings.json');
    expect(found.codex).toBe('/srv/codex/config.toml');
  });

  it('Windows, from APPDATA', () => {
    const appData = join('/c/Users/me', 'AppData', 'Roaming');
    const found = paths('win32', '/c/Users/me', { APPDATA: appData });
    expect(found['claude-desktop']).toBe(join(appData, 'Claude', 'claude_desktop_config.json'));
    expect(found.vscode).toBe(join(appData, 'Code', 'User', 'mcp.json'));
    expect(found.zed).toBe(join(appData, 'Zed', 'settings.json'));
    expect(found.cursor).toBe(join('/c/Users/me', '.cursor', 'mcp.json'));
  });
});
