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

describe('Codex TOML at its edges: big integers, quotes, no final newline, a table twice', () => {
  const ours = '[mcp_servers.model-feed]\ncommand = "npx"\nargs = []\n';

  it('reads integers beyond 2^53 and keeps them exactly', () => {
    const original = 'max_bytes = 9007199254740993\n';
    const added = codexToml.add(original, entry, lib);
    expect(added.startsWith(original)).toBe(true);
    expect(codexToml.remove(added, lib)).toBe(original);
    const merged = codexToml.add(`${original}\n${ours}`, entry, lib);
    expect(merged.startsWith(original)).toBe(true);
  });

  it.each([
    ['a literal string holding """', `notes = '''a """ b'''\n`],
    ["a basic string holding '''", `notes = """a ''' b"""\n`],
    ['quotes in one-line strings', `a = "'''"\nb = '"""'\n`],
    ['quotes in a comment', `# a """ here\n`],
    ['an escaped quote and a closing run of quotes', `a = """x \\""" y""""\nb = '''z'''''\n`],
    ['a header inside a multi-line string', `notes = '''\n[mcp_servers.model-feed]\n'''\n`],
  ])('finds our table after %s', (_case, before) => {
    const original = `${before}\n${ours}`;
    const merged = codexToml.add(original, entry, lib);
    expect(merged.startsWith(before)).toBe(true);
    expect(
      (lib.parseToml(merged) as { mcp_servers: Record<string, unknown> }).mcp_servers['model-feed'],
    ).toMatchObject({
      command: entry.command,
    });
    expect(codexToml.remove(merged, lib)).toBe(before);
  });

  it.each([
    'model = "o3"',
    'model = "o3"\n\n[mcp_servers.a]\ncommand = "x"',
    'model = "o3"\r\n[mcp_servers.a]\r\ncommand = "x"',
  ])('a file with no final newline comes back byte for byte (%j)', (original) => {
    const added = codexToml.add(original, entry, lib);
    expect(codexToml.remove(added, lib)).toBe(original);
    // Merged in place while it is the last table: still no final newline, and no stray \r.
    const stale = added.replace('https://feed.example', 'https://old.example');
    const merged = codexToml.add(stale, entry, lib);
    expect(merged).toBe(added);
    expect(codexToml.remove(merged, lib)).toBe(original);
  });

  it('a table defined twice is refused naming both lines', () => {
    const twice = `${ours}\n[mcp_servers.model-feed]\ncommand = "x"\n`;
    expect(() => codexToml.add(twice, entry, lib)).toThrow(ConfigParseError);
    expect(() => codexToml.remove(twice, lib)).toThrow(/lines 1 and 5/);
  });
});
