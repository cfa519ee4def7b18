/**
 * The README is the front door: short, `setup` on the first screen, one collapsed block per client.
 * Its copy-paste configs, and the longer ones in docs/clients.md, must work when pasted: valid JSON,
 * the package started the way the registry serves it, the key in `env`, never in `args`.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ENV } from '../../src/config.js';
import { buildDataset } from '../../src/sandbox/dataset.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { links, sections } from './markdown.js';
import { ROOT, readText } from './support.js';

const readme = readText('README.md');
const clients = readText('docs/clients.md');
/** Where client configs live: the README's compact ones, and the longer variants. */
const pages = { 'README.md': readme, 'docs/clients.md': clients };

/** The bodies of the fenced blocks of one language, in order, from every page with configs. */
function blocks(lang: string): string[] {
  return Object.values(pages).flatMap((text) =>
    [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!),
  );
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
/** docs/clients.md has no JSON that is not a client config; the README neither. */
const configs = jsonBlocks.map((text) => JSON.parse(text) as Record<string, unknown>);
const servers = configs.flatMap(entries);

describe('README shape', () => {
  const lines = readme.split('\n');

  it('is at most 250 lines', () => {
    // A trailing newline ends the last line; it does not start another.
    expect(readme.endsWith('\n') ? lines.length - 1 : lines.length).toBeLessThanOrEqual(250);
  });

  it('shows `setup` on the first screen (40 lines), before the manual configs', () => {
    const first = lines.slice(0, 40).join('\n');
    expect(first).toContain('npx -y model-feed-mcp setup');
    expect(readme.indexOf('model-feed-mcp setup')).toBeLessThan(readme.indexOf('<details>'));
  });

  it('says near the top where the key and the base URL come from, and the Node version', () => {
    const top = lines.slice(0, 12).join('\n');
    expect(top).toMatch(/account screen/);
    expect(top).toMatch(/base URL/);
    const { engines } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      engines: { node: string };
    };
    expect(top).toContain(`Node.js ${engines.node.replace('>=', '>= ')}`);
  });

  it('has one collapsed block per client, plus Windows', () => {
    const summaries = [...readme.matchAll(/<summary><b>([^<]+)<\/b>/g)].map((m) => m[1]);
    expect(summaries).toEqual([
      'Claude Desktop',
      'Claude Code',
      'Cursor',
      'VS Code',
      'Windsurf',
      'Codex',
      'Gemini CLI',
      'Zed',
      'Windows',
    ]);
    expect(readme.match(/<details>/g)).toHaveLength(readme.match(/<\/details>/g)?.length ?? 0);
  });

  it('gives the from-source install, for until the package is on npm', () => {
    expect(readme).toContain('npm ci && npm run build && npm pack');
    expect(readme).toMatch(/npm i -g \.\/model-feed-mcp-<version>\.tgz/);
    expect(readme).toContain('"command": "model-feed-mcp"');
  });

  it('keeps the two commands that work on a fresh clone', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });

  it('documents every setting in the table and every _meta key the server sends', () => {
    for (const name of Object.values(ENV)) expect(readme, name).toContain(`\`${name}\``);
    const src = fileURLToPath(new URL('src/', ROOT));
    const metaKeys = new Set<string>();
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const code = readFileSync(join(src, file), 'utf8');
      for (const m of code.matchAll(/['"](modelFeed\/[A-Za-z]+)['"]/g)) metaKeys.add(m[1]!);
    }
    expect(metaKeys.size).toBeGreaterThanOrEqual(3);
    for (const key of metaKeys) expect(readme, key).toContain(`\`${key}\``);
  });

  it('links to its docs (checked by links.test.ts)', () => {
    expect(links(readme).length).toBeGreaterThanOrEqual(10);
    expect(links(readme)).toContain('docs/setup.md');
  });
});

describe('README contents that follow the code', () => {
  it('comes in the order a new user needs: what it is, install (setup, then by hand), tools, troubleshooting, reference', () => {
    // What it is, and where the service, the key and the base URL come from: before any section.
    const intro = readme.slice(0, readme.indexOf('\n## '));
    expect(intro).toMatch(/Model Change Feed Service/);
    expect(intro).toMatch(/account screen/);
    expect(intro).toMatch(/base URL/);

    const top = sections(readme, 2).map((s) => s.title);
    expect(top[0]).toBe('Install');
    const at = ['Install', 'Tools', 'Troubleshooting', 'Reference'].map((title) => top.indexOf(title));
    expect(at, top.join(' | ')).not.toContain(-1);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // After the reference, only the notes for contributors and the license.
    expect(top.slice(top.indexOf('Reference') + 1)).toEqual(['Development', 'License']);

    const install = sections(sections(readme, 2).find((s) => s.title === 'Install')!.body, 3);
    expect(install.map((s) => s.title).slice(0, 2)).toEqual(['With `setup` (recommended)', 'By hand']);
    const reference = sections(sections(readme, 2).find((s) => s.title === 'Reference')!.body, 3);
    expect(reference.map((s) => s.title)).toEqual(['Settings', 'Commands and exit codes', '`_meta` keys']);
  });

  it("gives the sandbox catalog's model count and change count as the bundled data has them", () => {
    const dataset = buildDataset(loadBundledData());
    const models = [...readme.matchAll(/\b(\d+) (?:[\w-]+ )?models\b/g)].map((m) => Number(m[1]));
    expect(models.length).toBeGreaterThanOrEqual(1);
    // search_models sees the catalog: the models whose latest status is not `removed`.
    for (const count of models) expect(count).toBe(dataset.catalog.length);
    const changes = /models in the catalog, (\d+) changes/.exec(readme);
    expect(Number(changes?.[1])).toBe(dataset.events.length);
  });

  it('claims client support only as verified: the SDK client version the tests run, no desktop client', () => {
    const { version } = JSON.parse(readText('node_modules/@modelcontextprotocol/client/package.json')) as {
      version: string;
    };
    const section = sections(readme, 2).find((s) => s.title === 'Resources, prompts and completions');
    expect(section?.body).toContain(`MCP SDK client ${version}`);
    for (const page of [section?.body ?? '', readText('docs/resources.md')]) {
      expect(page).not.toMatch(/Shown by|\| (VS Code|Cursor)[^|]*\|\s*$/m);
    }
    // Only what was seen: Claude Code 2.1.332 sent no subscriptions/listen.
    for (const page of ['docs/resources.md', 'docs/clients.md']) {
      expect(readText(page)).not.toMatch(/Claude Code (listens|uses subscriptions\/listen)/);
    }
    expect(readText('docs/resources.md')).toContain('Claude Code 2.1.332 sent none');
  });

  it('documents every flag `watch --help` shows, and its environment variable', () => {
    let help = '';
    const io = { stdout: (text: string) => (help += text), stderr: () => {}, env: {} };
    const program = buildProgram(io, [], () => {});
    program.commands.find((c) => c.name() === 'watch')!.outputHelp();
    const [own = '', settings = ''] = help.split(/^Settings:$/m);
    const flags = (text: string) => [...text.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)/gm)].map((m) => m[1]!);
    const mentions = (text: string, flag: string) => new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(text);

    // The command's own flags in its section, the settings flags anywhere (the settings table).
    const watch = sections(readme, 2).find((s) => s.title === 'Watch the feed')!.body;
    const ownFlags = flags(own).filter((f) => f !== '--help' && f !== '--version');
    expect(ownFlags).toEqual(expect.arrayContaining(['--type', '--once', '--webhook-format', '--atom']));
    for (const flag of ownFlags) expect(mentions(watch, flag), `${flag} in "Watch the feed"`).toBe(true);
    expect(flags(settings)).toEqual(expect.arrayContaining(['--base-url', '--sandbox']));
    for (const flag of [...flags(settings), '--help', '--version'])
      expect(mentions(readme, flag), flag).toBe(true);

    const env = [...help.matchAll(/^ {2}([A-Z][A-Z0-9_]+) /gm)].map((m) => m[1]!);
    expect(env).toContain('MODEL_FEED_WEBHOOK_SECRET');
    for (const name of env) expect(watch, name).toContain(`\`${name}\``);
    expect(watch).toContain('sandbox --live');
  });
});

describe('client configurations (README and docs/clients.md)', () => {
  it('are plain JSON (no comments, no trailing commas)', () => {
    expect(jsonBlocks.length).toBeGreaterThanOrEqual(9);
    for (const text of jsonBlocks) expect(() => JSON.parse(text), text).not.toThrow();
  });

  it('start the package in every stdio config, and pass the key and base URL in env', () => {
    const stdio = servers.filter((s) => s.command !== undefined);
    expect(stdio.length).toBeGreaterThanOrEqual(8);
    for (const entry of stdio) {
      const line = [entry.command, ...(entry.args ?? [])].join(' ');
      expect(line).toMatch(/^(cmd \/c )?npx -y model-feed-mcp$/);
      expect(Object.keys(entry.env ?? {}).sort()).toEqual([ENV.apiKey, ENV.baseUrl].sort());
      // The key goes in env, never on the command line.
      expect(JSON.stringify(entry.args)).not.toContain(ENV.apiKey);
    }
    expect(stdio.some((s) => s.command === 'cmd')).toBe(true);
  });

  /** The hosted endpoint's config (docs/clients.md), and the `--http` ones (README and docs/clients.md). */
  const remote = servers.filter((s) => s.url !== undefined);
  const hosted = remote.filter((s) => s.url?.startsWith('https://'));
  const local = remote.filter((s) => !s.url?.startsWith('https://'));

  it('point the hosted-endpoint config at {base_url}/api/mcp with a bearer header', () => {
    expect(hosted).toHaveLength(1);
    expect(hosted[0]).toMatchObject({ type: 'http', url: expect.stringMatching(/^https:\/\/.*\/api\/mcp$/) });
    expect(hosted[0]?.headers?.Authorization).toMatch(/^Bearer /);
  });

  it('give --http the hosted-endpoint config with only the URL changed, to loopback', () => {
    // One in the README's --http section, one in docs/clients.md.
    expect(local).toHaveLength(2);
    for (const entry of local) {
      expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
      expect({ ...entry, url: hosted[0]?.url }).toEqual(hosted[0]);
    }
  });

  it('use a password input for the key in the VS Code config', () => {
    const vscode = configs.find((c) => 'servers' in c) as {
      inputs: { type: string; id: string; password: boolean }[];
      servers: Record<string, ServerEntry>;
    };
    const input = vscode.inputs.find((i) => i.type === 'promptString' && i.password);
    expect(input).toBeDefined();
    expect(vscode.servers['model-feed']?.env?.[ENV.apiKey]).toBe(`\${input:${input?.id}}`);
  });

  it('include a Codex TOML block with a [mcp_servers.*] table that runs npx', () => {
    const toml = blocks('toml');
    expect(toml).toHaveLength(1);
    // Whole-line and trailing comments are TOML comments, outside strings here.
    const lines = toml[0]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, ''))
      .filter((l) => l.trim() && !l.trim().startsWith('#'));
    expect(lines[0]).toMatch(/^\[mcp_servers\.[A-Za-z0-9_-]+\]$/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^[A-Za-z0-9_-]+ = \S/);
    const value = (key: string) => lines.find((l) => l.startsWith(`${key} = `))?.slice(key.length + 3);
    expect(value('command')).toBe('"npx"');
    // A TOML array of basic strings is also JSON.
    expect(JSON.parse(value('args') ?? 'null')).toEqual(['-y', 'model-feed-mcp']);
    expect(value('env')).toMatch(new RegExp(`^\\{ ${ENV.apiKey} = ".*", ${ENV.baseUrl} = ".*" \\}$`));
  });

  it('put the Claude Code server name before --env, and the command after --', () => {
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
