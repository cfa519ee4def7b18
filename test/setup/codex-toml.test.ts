import { describe, expect, it } from 'vitest';
import { codexToml, headerPath } from '../../src/setup/clients/codex-toml.js';
import type { ServerEntry } from '../../src/setup/entry.js';
import * as lib from '../../src/setup/formats.js';
import { ConfigParseError, ConfigShapeError } from '../../src/setup/problems.js';

const entry: ServerEntry = {
  command: 'C:\\Program Files\\nodejs\\node.exe',
  args: ['C:\\Users\\me\\model-feed-mcp\\bin\\model-feed-mcp.cjs'],
  env: { MODEL_FEED_API_KEY: 'mfsk_test_key_0123456789', MODEL_FEED_BASE_URL: 'https://feed.example' },
};

const CONFIG = `# Codex settings
model = "o4-mini"
approval_policy = "on-request"

[mcp_servers.github]
command = "docker"
args = ["run", "-i", "ghcr.io/github/github-mcp-server"]
env = { GITHUB_TOKEN = "ghp_x" } # inline

# Profiles below
[profiles.fast]
model = "gpt-4.1-mini"
notes = """
[not.a.table]
"""
`;

describe('Codex TOML', () => {
  it('appends our table, keeps everything else byte for byte, and removal restores the original', () => {
    const added = codexToml.add(CONFIG, entry, lib);
    expect(added.startsWith(CONFIG)).toBe(true);
    expect(added.slice(CONFIG.length)).toBe(
      '\n[mcp_servers.model-feed]\ncommand = "C:\\\\Program Files\\\\nodejs\\\\node.exe"\nargs = ["C:\\\\Users\\\\me\\\\model-feed-mcp\\\\bin\\\\model-feed-mcp.cjs"]\nenv = { MODEL_FEED_API_KEY = "mfsk_test_key_0123456789", MODEL_FEED_BASE_URL = "https://feed.example" }\nstartup_timeout_sec = 30\n',
    );
    const parsed = lib.parseToml(added) as { mcp_servers: Record<string, { command: string }> };
    expect(parsed.mcp_servers['model-feed']?.command).toBe(entry.command);
    expect(codexToml.remove(added, lib)).toBe(CONFIG);
    expect(codexToml.add(added, entry, lib)).toBe(added);
  });

  it('rewrites an existing table in place, keeping the keys the user added and the tables around it', () => {
    const original = `[mcp_servers.model-feed]
command = "npx"
args = ["-y", "model-feed-mcp"]
enabled = true
startup_timeout_sec = 60
env = { MODEL_FEED_API_KEY = "old", HTTPS_PROXY = "http://proxy:3128" }

# the next one
[mcp_servers.other]
command = "x"
`;
    const merged = codexToml.add(original, entry, lib);
    expect(merged.endsWith('\n# the next one\n[mcp_servers.other]\ncommand = "x"\n')).toBe(true);
    const parsed = lib.parseToml(merged) as { mcp_servers: Record<string, Record<string, unknown>> };
    expect(parsed.mcp_servers['model-feed']).toEqual({
      command: entry.command,
      args: entry.args,
      enabled: true,
      startup_timeout_sec: 60,
      env: {
        MODEL_FEED_API_KEY: entry.env.MODEL_FEED_API_KEY,
        HTTPS_PROXY: 'http://proxy:3128',
        MODEL_FEED_BASE_URL: 'https://feed.example',
      },
    });
    expect(codexToml.remove(merged, lib)).toBe('# the next one\n[mcp_servers.other]\ncommand = "x"\n');
  });

  it('keeps CRLF line ends, and handles a new file', () => {
    const original = 'model = "o3"\r\n';
    const added = codexToml.add(original, entry, lib);
    expect(added.replace(/\r\n/g, '')).not.toContain('\n');
    expect(codexToml.remove(added, lib)).toBe(original);
    expect(codexToml.add('', entry, lib).startsWith('[mcp_servers.model-feed]\n')).toBe(true);
  });

  it('names the line of a syntax error', () => {
    const broken = 'model = "o3"\n[mcp_servers.github\ncommand = "x"\n';
    expect(() => codexToml.add(broken, entry, lib)).toThrow(ConfigParseError);
    try {
      codexToml.add(broken, entry, lib);
    } catch (error) {
      expect((error as ConfigParseError).line).toBe(2);
    }
  });

  it('refuses an entry written as an inline table rather than risk the file', () => {
    const inline = '[mcp_servers]\nmodel-feed = { command = "npx", args = [] }\n';
    expect(() => codexToml.add(inline, entry, lib)).toThrow(ConfigShapeError);
    expect(() => codexToml.remove(inline, lib)).toThrow(ConfigShapeError);
  });

  it('reads table headers with quoted keys', () => {
    expect(headerPath('[mcp_servers."model-feed"] # ours')).toEqual(['mcp_servers', 'model-feed']);
    expect(headerPath("[[ a . 'b c' ]]")).toEqual(['a', 'b c']);
    expect(headerPath('args = ["[x]"]')).toBeUndefined();
  });
});
