import { describe, expect, it } from 'vitest';
import { ENV } from '../../src/config.js';
import { readText } from './support.js';

const readme = readText('README.md');

/** The bodies of the fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...readme.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

/** The text of one `## ` section, up to the next one. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README section "## ${title}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

interface ServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  type?: string;
  url?: string;
  headers?: Record<string, string>;
}

/** Every server entry of a client config, whatever the client calls its top-level key. */
function entries(config: Record<string, unknown>): ServerEntry[] {
  const maps = ['mcpServers', 'servers', 'context_servers'].map((k) => config[k]).filter(Boolean);
  expect(maps, 'a mcpServers, servers or context_servers object').toHaveLength(1);
  return Object.values(maps[0] as Record<string, ServerEntry>);
}

const jsonBlocks = blocks('json');
const configs = jsonBlocks.map((text) => JSON.parse(text) as Record<string, unknown>);
const servers = configs.flatMap(entries);

describe('README client configuration', () => {
  it('comes right after the quick start', () => {
    expect(readme.indexOf('\n## Client configuration\n')).toBe(
      readme.indexOf('\n## ', readme.indexOf('\n## Quick start\n') + 1),
    );
  });

  it('covers every client named in the brief, plus Windows and the hosted endpoint', () => {
    const text = section('Client configuration');
    for (const heading of [
      'Claude Desktop',
      'Claude Code',
      'Cursor',
      'VS Code',
      'Windsurf',
      'Codex',
      'Gemini CLI',
      'Zed',
      'Windows',
      'Hosted endpoint or local runner?',
      'One-click install',
    ]) {
      expect(text).toContain(`\n### ${heading}\n`);
    }
  });

  it('has JSON blocks that are plain JSON (no comments, no trailing commas)', () => {
    expect(jsonBlocks.length).toBeGreaterThanOrEqual(10);
    for (const text of jsonBlocks) expect(() => JSON.parse(text), text).not.toThrow();
  });

  it('starts the package in every stdio config, and passes the key and base URL in env', () => {
    const stdio = servers.filter((s) => s.command !== undefined);
    expect(stdio.length).toBeGreaterThanOrEqual(9);
    for (const entry of stdio) {
      const line = [entry.command, ...(entry.args ?? [])].join(' ');
      expect(line).toMatch(/^(cmd \/c )?npx -y model-feed-mcp$/);
      expect(Object.keys(entry.env ?? {}).sort()).toEqual([ENV.apiKey, ENV.baseUrl].sort());
      // The key goes in env, never on the command line.
      expect(JSON.stringify(entry.args)).not.toContain(ENV.apiKey);
    }
  });

  it('points the hosted-endpoint config at {base_url}/api/mcp with a bearer header', () => {
    const http = servers.filter((s) => s.url !== undefined);
    expect(http).toHaveLength(2);
    expect(http[0]).toMatchObject({ type: 'http', url: expect.stringMatching(/^https:\/\/.*\/api\/mcp$/) });
    expect(http[0]?.headers?.Authorization).toMatch(/^Bearer /);
  });

  it('gives --http the hosted-endpoint config with only the URL changed, to loopback', () => {
    const [hosted, local] = servers.filter((s) => s.url !== undefined);
    expect(local?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
    expect({ ...local, url: hosted?.url }).toEqual(hosted);
  });

  it('uses a password input for the key in the VS Code config', () => {
    const vscode = configs.find((c) => 'servers' in c) as {
      inputs: { type: string; id: string; password: boolean }[];
      servers: Record<string, ServerEntry>;
    };
    const input = vscode.inputs.find((i) => i.type === 'promptString' && i.password);
    expect(input).toBeDefined();
    expect(vscode.servers['model-feed']?.env?.[ENV.apiKey]).toBe(`\${input:${input?.id}}`);
  });

  it('has a Codex TOML block with a [mcp_servers.*] table that runs npx', () => {
    const toml = blocks('toml');
    expect(toml).toHaveLength(1);
    const lines = toml[0]!.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
    expect(lines[0]).toMatch(/^\[mcp_servers\.[A-Za-z0-9_-]+\]$/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^[A-Za-z0-9_-]+ = \S/);
    const value = (key: string) => lines.find((l) => l.startsWith(`${key} = `))?.slice(key.length + 3);
    expect(value('command')).toBe('"npx"');
    // A TOML array of basic strings is also JSON.
    expect(JSON.parse(value('args') ?? 'null')).toEqual(['-y', 'model-feed-mcp']);
    expect(value('env')).toMatch(new RegExp(`^\\{ ${ENV.apiKey} = ".*", ${ENV.baseUrl} = ".*" \\}$`));
  });

  it('puts the Claude Code server name before --env, and the command after --', () => {
    const commands = blocks('sh')
      .flatMap((b) => b.replace(/\\\n\s*/g, '').split('\n'))
      .filter((l) => l.startsWith('claude mcp add'));
    const stdio = commands.filter((c) => c.includes(' -- '));
    expect(stdio).toHaveLength(1);
    const [command] = stdio as [string];
    expect(command.indexOf(' model-feed ')).toBeLessThan(command.indexOf('--env'));
    expect(command).toMatch(/ -- npx -y model-feed-mcp$/);
    expect(command.match(/--env (\w+)=/g)).toEqual([`--env ${ENV.apiKey}=`, `--env ${ENV.baseUrl}=`]);
    const http = commands.filter((c) => c.includes('--transport http'));
    expect(http).toHaveLength(1);
    expect(http[0]).toMatch(/\/api\/mcp' --header "Authorization: Bearer /);
  });
});
