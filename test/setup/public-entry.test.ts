/** The entry for the public origins in each format: `--source public` in args, no key, no base URL. */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME } from '../../src/own-command.js';
import { claudeAddArgs } from '../../src/setup/clients/claude-cli.js';
import { codexToml } from '../../src/setup/clients/codex-toml.js';
import { mcpServersJson } from '../../src/setup/clients/mcp-servers-json.js';
import { vscodeJson } from '../../src/setup/clients/vscode-json.js';
import { envToDrop, type ServerEntry } from '../../src/setup/entry.js';
import * as lib from '../../src/setup/formats.js';

const PUBLIC: ServerEntry = { command: 'npx', args: ['-y', 'model-feed-mcp', '--source', 'public'], env: {} };
const KEYED: ServerEntry = {
  command: 'npx',
  args: ['-y', 'model-feed-mcp'],
  env: { MODEL_FEED_API_KEY: 'mfsk_live_0123456789abcdef', MODEL_FEED_BASE_URL: 'https://feed.example.com' },
};

const json = (text: string) =>
  lib.getNodeValue(lib.parseTree(text)!) as Record<string, Record<string, unknown>>;

describe('the public entry', () => {
  it('drops only the variables setup manages that it lacks', () => {
    expect(envToDrop(PUBLIC)).toEqual(['MODEL_FEED_API_KEY', 'MODEL_FEED_BASE_URL']);
    expect(envToDrop(KEYED)).toEqual([]);
  });

  it('Claude Code: `claude mcp add` with the source as an argument and no --env', () => {
    expect(claudeAddArgs(PUBLIC)).toEqual([
      'mcp',
      'add',
      'model-feed',
      '--scope',
      'user',
      '--',
      'npx',
      '-y',
      'model-feed-mcp',
      '--source',
      'public',
    ]);
  });

  it("mcpServers JSON: over a keyed entry, the key and base URL go and the user's own keys stay", () => {
    const format = mcpServersJson('mcpServers');
    const keyed = format
      .add('{}', KEYED, lib)
      .replace('"env": {', '"disabled": false,\n      "env": {\n        "EXTRA": "1",');
    const after = json(format.add(keyed, PUBLIC, lib));
    expect(after.mcpServers?.['model-feed']).toEqual({ ...PUBLIC, disabled: false, env: { EXTRA: '1' } });
  });

  it('VS Code: no password input; an input another server still uses stays', () => {
    const fresh = json(vscodeJson.add('', PUBLIC, lib));
    expect(fresh.inputs).toBeUndefined();
    const keyed = vscodeJson.add('', KEYED, lib);
    expect(json(vscodeJson.add(keyed, PUBLIC, lib)).inputs).toEqual([]);
    const shared = keyed.replace(
      '"servers": {',
      `"servers": {\n    "other": { "type": "stdio", "command": "x", "env": { "K": "\${input:model-feed-api-key}" } },`,
    );
    expect(json(vscodeJson.add(shared, PUBLIC, lib)).inputs).toHaveLength(1);
  });

  it('Codex: the table without the key and base URL, proved by parsing it back', () => {
    const keyed = codexToml.add('', KEYED, lib);
    const after = lib.parseToml(codexToml.add(keyed, PUBLIC, lib)) as {
      mcp_servers: Record<string, unknown>;
    };
    expect(after.mcp_servers['model-feed']).toEqual({ ...PUBLIC, startup_timeout_sec: 30 });
  });
});

describe("the README's no-account config", () => {
  it('is the entry setup --source public writes for npx: valid JSON, the source in args, no env', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const inline = /\*\*No account:\*\*.*?e\.g\. `(\{.*?\})`/.exec(readme)?.[1];
    expect(inline).toBeDefined();
    const config = JSON.parse(inline!) as { mcpServers: Record<string, unknown> };
    expect(config.mcpServers['model-feed']).toEqual({
      command: 'npx',
      args: ['-y', PACKAGE_NAME, '--source', 'public'],
    });
    expect(PUBLIC.args).toEqual(['-y', PACKAGE_NAME, '--source', 'public']);
  });
});
