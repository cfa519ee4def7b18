/**
 * `model-feed-mcp setup`, the built CLI on temp HOME folders holding realistic configs (comments,
 * other servers, unknown keys), the key piped on stdin and checked against an in-process sandbox.
 */

import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { getNodeValue, parseToml, parseTree } from '../../src/setup/formats.js';
import { tempFolder } from '../support/temp.js';
import { BIN, NODE, type Output, run, scrubbedEnv } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

/** The CLI with `input` on its stdin (a pipe, so not a TTY). */
function setup(args: string[], env: Record<string, string>, input = ''): Promise<Output> {
  return run(['setup', ...args], env, { input });
}

function tempHome(): string {
  return tempFolder('mf-setup-home-');
}

function put(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

/** The environment a user's shell would pass: HOME explicit, no key, no XDG config folder. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  // A PATH without any real `claude`: setup would run it.
  return scrubbedEnv({
    HOME: home,
    APPDATA: join(home, 'AppData', 'Roaming'),
    PATH: '/usr/bin:/bin',
    ...extra,
  });
}

function backups(file: string): string[] {
  return readdirSync(dirname(file)).filter(
    (f) => f.startsWith(`${file.split('/').pop()}.`) && f.endsWith('.bak'),
  );
}

const CURSOR = `{
  // Servers for every project
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"] // my code
    }
  },
  "cursor.someUnknownSetting": { "keep": true }
}
`;

const CLAUDE_DESKTOP = `{
  "mcpServers": {
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
  },
  "globalShortcut": "Alt+Space",
  "preferences": { "menuBarEnabled": false }
}
`;

const VSCODE = `// User-level MCP servers
{
  "inputs": [
    { "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer \${input:gh-token}" }
    }
  }
}
`;

const CODEX = `# ~/.codex/config.toml
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[profiles.deep]
model_reasoning_effort = "high" # slow but careful
`;

const cases = [
  { client: 'cursor', file: '.cursor/mcp.json', text: CURSOR, mode: 0o644 },
  {
    client: 'claude-desktop',
    file: '.config/Claude/claude_desktop_config.json',
    text: CLAUDE_DESKTOP,
    mode: 0o600,
  },
  { client: 'vscode', file: '.config/Code/User/mcp.json', text: VSCODE, mode: 0o644 },
  { client: 'codex', file: '.codex/config.toml', text: CODEX, mode: 0o600 },
];

describe('setup --client <name> --yes, then --remove', () => {
  it.each(cases)(
    '$client: keeps the other servers and comments, adds ours; --remove restores the original bytes',
    async ({ client, file, text, mode }) => {
      const home = tempHome();
      const path = join(home, file);
      put(path, text, mode);
      const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url });

      const added = await setup(['--client', client, '--yes'], env, `${sandbox.key}\n`);
      expect(added.code).toBe(0);
      // VS Code keeps the key itself: none is asked for, none is written.
      if (client !== 'vscode') expect(added.stderr).toContain('The service accepted the key.');
      const after = readFileSync(path, 'utf8');
      expect(added.stdout).toContain(`added model-feed to ${path} (backup: ${path}.`);

      // The other server and settings are still there, and ours is beside them.
      const parsed = (client === 'codex' ? parseToml(after) : getNodeValue(parseTree(after)!)) as Record<
        string,
        Record<string, Record<string, unknown>>
      >;
      const servers =
        parsed[client === 'vscode' ? 'servers' : client === 'codex' ? 'mcp_servers' : 'mcpServers']!;
      expect(Object.keys(servers)).toEqual([
        { cursor: 'filesystem', 'claude-desktop': 'memory', vscode: 'github', codex: 'context7' }[client],
        'model-feed',
      ]);
      expect(servers['model-feed']).toMatchObject({ command: NODE, args: [BIN] });
      if (client === 'vscode') {
        expect(after).not.toContain(sandbox.key);
        expect(after).toContain(`\${input:model-feed-api-key}`);
      } else {
        expect(after).toContain(sandbox.key);
      }
      expect(after).toContain(sandbox.url);
      // User-only, whatever it was: the file now holds the key. Its backup holds none, and keeps
      // the original's mode, which --remove gives back.
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const [backup] = backups(path);
      expect(statSync(join(dirname(path), backup!)).mode & 0o777).toBe(mode);
      expect(readFileSync(join(dirname(path), backup!), 'utf8')).toBe(text);

      const removed = await setup(['--client', client, '--remove'], envFor(home));
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`removed model-feed from ${path}`);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(statSync(path).mode & 0o777).toBe(mode);
    },
  );

  it('Cursor: the added entry keeps the other server line and its comment byte for byte', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    put(path, CURSOR);
    await setup(
      ['--client', 'cursor'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      `${sandbox.key}\n`,
    );
    const after = readFileSync(path, 'utf8');
    expect(after).toContain(
      '"args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"] // my code\n    },\n',
    );
    expect(after).toContain('// Servers for every project');
    expect(after).toContain('"cursor.someUnknownSetting": { "keep": true }');
  });
});

describe('a config written by a Windows editor', () => {
  it('with a byte-order mark: merged after it, and --remove restores the exact bytes', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    const original = `\uFEFF${CURSOR.replaceAll('\n', '\r\n')}`;
    put(path, original);
    const added = await setup(
      ['--client', 'cursor'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      `${sandbox.key}\n`,
    );
    expect(added.code).toBe(0);
    const after = readFileSync(path, 'utf8');
    expect(after.startsWith('\uFEFF{\r\n  // Servers for every project')).toBe(true);
    expect(after).toContain('"model-feed"');
    expect(after).toContain('// my code\r\n');
    const removed = await setup(['--client', 'cursor', '--remove'], envFor(home));
    expect(removed.code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(original);
  });
});

describe('the key is checked before anything is written', () => {
  it('a rejected key (401) writes nothing, makes no backup and exits 1', async () => {
    const home = tempHome();
    for (const c of cases) put(join(home, c.file), c.text);
    const result = await setup(
      ['--client', 'cursor,claude-desktop,vscode,codex'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      'mfsk_wrong_key_0000000000000000\n',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('rejected the API key (HTTP 401)');
    expect(result.stderr).toContain('Nothing was written.');
    expect(result.stderr).not.toContain('mfsk_wrong_key_0000000000000000');
    for (const c of cases) {
      expect(readFileSync(join(home, c.file), 'utf8')).toBe(c.text);
      expect(backups(join(home, c.file))).toEqual([]);
    }
  });

  it('no key at all, and no terminal to ask in: exit 2, naming the ways to give one', async () => {
    const home = tempHome();
    const result = await setup(['--client', 'cursor'], envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No API key: set MODEL_FEED_API_KEY, pipe the key on stdin');
  });

  it('MODEL_FEED_API_KEY from the environment works as well as stdin', async () => {
    const home = tempHome();
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key });
    const result = await setup(['--client', 'windsurf', '--client', 'gemini,zed'], env);
    expect(result.code).toBe(0);
    for (const file of [
      '.codeium/windsurf/mcp_config.json',
      '.gemini/settings.json',
      '.config/zed/settings.json',
    ]) {
      const written = readFileSync(join(home, file), 'utf8');
      expect(written).toContain(sandbox.key);
      // A new file is the user's alone.
      expect(statSync(join(home, file)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(home, '.config/zed/settings.json'), 'utf8')).toContain('"context_servers"');
  });
});

describe('files setup cannot read, and dry runs', () => {
  it('a config that does not parse is left alone, named with its line', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n';
    put(path, broken);
    const codexPath = join(home, '.codex/config.toml');
    put(codexPath, CODEX);
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url });
    const result = await setup(['--client', 'cursor,codex'], env, `${sandbox.key}\n`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Cursor: cannot parse ${path}:4:5 (line 4: CommaExpected); left it unchanged.`,
    );
    expect(readFileSync(path, 'utf8')).toBe(broken);
    expect(backups(path)).toEqual([]);
    // The other client is still configured.
    expect(readFileSync(codexPath, 'utf8')).toContain('[mcp_servers.model-feed]');
  });

  it('a TOML syntax error is named by line too', async () => {
    const home = tempHome();
    const path = join(home, '.codex/config.toml');
    const broken = 'model = "o3"\n\n[mcp_servers.x\ncommand = "y"\n';
    put(path, broken);
    const result = await setup(
      ['--client', 'codex'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      `${sandbox.key}\n`,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Codex: cannot parse ${path}:3:`);
    expect(readFileSync(path, 'utf8')).toBe(broken);
  });

  it('--print shows the change with the key masked, and writes nothing', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    put(path, CURSOR);
    const result = await setup(
      ['--client', 'cursor', '--print'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      `${sandbox.key}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`--- ${path}`);
    expect(result.stdout).toContain('+    "model-feed": {');
    expect(result.stdout).toContain(
      `<MODEL_FEED_API_KEY: ${sandbox.key.slice(0, 4)}…${sandbox.key.slice(-4)}>`,
    );
    expect(result.stdout).not.toContain(sandbox.key);
    expect(readFileSync(path, 'utf8')).toBe(CURSOR);
    expect(backups(path)).toEqual([]);
  });

  it('--remove of an entry that is not there changes nothing', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    put(path, CURSOR);
    const result = await setup(['--client', 'cursor', '--remove'], envFor(home));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('has no model-feed entry; unchanged.');
    expect(backups(path)).toEqual([]);
  });
});

describe('choosing clients and the command', () => {
  it('without a terminal, --client or --yes: exit 2 saying how to choose', async () => {
    const result = await setup([], envFor(tempHome(), { MODEL_FEED_BASE_URL: sandbox.url }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('stdin is not a terminal. Name them with --client <name>');
  });

  it('an unknown client name: exit 2 with the known names', async () => {
    const result = await setup(['--client', 'notepad'], envFor(tempHome()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown client "notepad". Known clients: claude-desktop, claude-code, cursor',
    );
  });

  it('--sandbox is refused with what to use instead', async () => {
    const result = await setup(['--sandbox', '--yes'], envFor(tempHome()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('does not take --sandbox');
  });

  it('--yes configures the clients found, and only those', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.cursor'));
    put(join(home, '.codex/config.toml'), CODEX);
    const result = await setup(
      ['--yes'],
      envFor(home, { MODEL_FEED_BASE_URL: sandbox.url }),
      `${sandbox.key}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Cursor: added');
    expect(result.stdout).toContain('Codex: added');
    expect(result.stdout).not.toContain('Windsurf');
    expect(readdirSync(home).sort()).toEqual(['.codex', '.cursor']);
  });

  it('run through npx, it writes `npx -y model-feed-mcp`', async () => {
    const home = tempHome();
    const env = envFor(home, {
      MODEL_FEED_BASE_URL: sandbox.url,
      npm_command: 'exec',
      PATH: '/usr/bin:/bin',
    });
    const result = await setup(['--client', 'cursor'], env, `${sandbox.key}\n`);
    expect(result.code).toBe(0);
    const written = JSON.parse(readFileSync(join(home, '.cursor/mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(written.mcpServers['model-feed']).toMatchObject({
      command: 'npx',
      args: ['-y', 'model-feed-mcp'],
    });
  });

  it('Claude Code through `claude mcp add` when the CLI is on PATH, spawned without a shell', async () => {
    const home = tempHome();
    const bin = join(home, 'bin');
    const log = join(home, 'claude-args.log');
    // Records each argument on its own line. The first "add" finds an entry in the way, as the real
    // CLI says it; "remove" then succeeds, and the second "add" too.
    put(
      join(bin, 'claude'),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho --- >> '${log}'\nif [ "$2" = add ] && [ ! -f '${log}.once' ]; then touch '${log}.once'; echo 'MCP server model-feed already exists in user config'; exit 1; fi\nexit 0\n`,
      0o755,
    );
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url, PATH: `${bin}:/usr/bin:/bin` });
    const result = await setup(['--client', 'claude-code'], env, `${sandbox.key} \n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Claude Code: added model-feed (claude mcp add --scope user)');
    const calls = readFileSync(log, 'utf8').split('---\n').filter(Boolean);
    const add = `mcp\nadd\nmodel-feed\n--scope\nuser\n--env\nMODEL_FEED_API_KEY=${sandbox.key}\n--env\nMODEL_FEED_BASE_URL=${sandbox.url}\n--\n${NODE}\n${BIN}\n`;
    // Add first; only because it was in the way, remove the old entry and add again.
    expect(calls).toEqual([add, 'mcp\nremove\nmodel-feed\n--scope\nuser\n', add]);
    // Claude Code's own file was not touched.
    expect(readdirSync(home).sort()).toEqual(['bin', 'claude-args.log', 'claude-args.log.once']);

    const printed = await setup(['--client', 'claude-code', '--print'], env, `${sandbox.key}\n`);
    expect(printed.stdout).toContain('claude mcp add model-feed --scope user --env');
    expect(printed.stdout).not.toContain(sandbox.key);
  });
});

describe('Claude Code, runs over an existing entry, symlinks', () => {
  /** A `claude` on PATH that logs its arguments and exits with `code`. */
  function fakeClaude(home: string, code: number): { bin: string; log: string } {
    const bin = join(home, 'bin');
    const log = join(home, 'claude-args.log');
    put(
      join(bin, 'claude'),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho --- >> '${log}'\nexit ${code}\n`,
      0o755,
    );
    return { bin, log };
  }

  it('--remove for Claude Code goes through `claude mcp remove`, and says when there was nothing', async () => {
    for (const [code, said] of [
      [0, 'Claude Code: removed model-feed (claude mcp remove --scope user)\n'],
      [1, 'Claude Code: no model-feed entry in the user scope; unchanged.\n'],
    ] as const) {
      const home = tempHome();
      const { bin, log } = fakeClaude(home, code);
      const result = await setup(
        ['--client', 'claude-code', '--remove'],
        envFor(home, { PATH: `${bin}:/usr/bin:/bin` }),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(said);
      expect(readFileSync(log, 'utf8')).toBe('mcp\nremove\nmodel-feed\n--scope\nuser\n---\n');
      // Claude Code's own file is its business when its CLI is there.
      expect(readdirSync(home).sort()).toEqual(['bin', 'claude-args.log']);
    }
  });

  it('without `claude` on PATH, ~/.claude.json is edited, keeping what Claude Code keeps there', async () => {
    const home = tempHome();
    const path = join(home, '.claude.json');
    const original = `{\n  "numStartups": 12,\n  "projects": { "/home/me/src": { "allowedTools": [] } },\n  "mcpServers": {}\n}\n`;
    put(path, original, 0o600);
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url });
    const added = await setup(['--client', 'claude-code'], env, `${sandbox.key}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Claude Code: added model-feed to ${path} (backup: ${path}.`);
    const written = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & {
      mcpServers: Record<string, { command: string; env: Record<string, string> }>;
    };
    expect(written.numStartups).toBe(12);
    expect(written.projects).toEqual({ '/home/me/src': { allowedTools: [] } });
    expect(written.mcpServers['model-feed']).toMatchObject({
      command: NODE,
      env: { MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url },
    });

    const removed = await setup(['--client', 'claude-code', '--remove'], envFor(home));
    expect(removed.code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(original);
  });

  it('run again over the same entry: "unchanged", no write and no new backup', async () => {
    const home = tempHome();
    const path = join(home, '.cursor/mcp.json');
    put(path, CURSOR);
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url });
    await setup(['--client', 'cursor'], env, `${sandbox.key}\n`);
    const first = readFileSync(path, 'utf8');
    const { mtimeMs } = statSync(path);
    expect(backups(path)).toHaveLength(1);

    const again = await setup(['--client', 'cursor'], env, `${sandbox.key}\n`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`Cursor: ${path} already has this model-feed entry; unchanged.`);
    expect(readFileSync(path, 'utf8')).toBe(first);
    expect(statSync(path).mtimeMs).toBe(mtimeMs);
    expect(backups(path)).toHaveLength(1);
  });

  it('a symlinked config (a dotfiles repo) is written through the link: the link stays a link', async () => {
    const home = tempHome();
    const target = join(home, 'dotfiles', 'cursor-mcp.json');
    put(target, CURSOR);
    const link = join(home, '.cursor/mcp.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    const env = envFor(home, { MODEL_FEED_BASE_URL: sandbox.url });
    const result = await setup(['--client', 'cursor'], env, `${sandbox.key}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toContain('"model-feed"');
    // The backup sits beside the file that changed; nothing was left beside the link.
    expect(backups(target)).toHaveLength(1);
    expect(readdirSync(dirname(link))).toEqual(['mcp.json']);

    await setup(['--client', 'cursor', '--remove'], envFor(home));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(CURSOR);
  });
});
