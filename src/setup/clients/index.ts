/**
 * The clients `setup` knows: where each keeps its config per platform, how to tell it is installed,
 * and its file format. Adding a client = one entry here (and a format file if it has a new one).
 * Pure: the environment, platform and home folder come from the caller.
 */

import { isAbsolute, join } from 'node:path';
import { closestTool } from '../../call-flags.js';
import type { PlatformFacts } from '../../store/paths.js';
import { editDistance } from '../../text/edit-distance.js';
import type { FileFormat } from '../entry.js';
import { codexToml } from './codex-toml.js';
import { mcpServersJson } from './mcp-servers-json.js';
import { vscodeJson } from './vscode-json.js';

export type ClientId =
  | 'claude-desktop'
  | 'claude-code'
  | 'cursor'
  | 'vscode'
  | 'windsurf'
  | 'codex'
  | 'gemini'
  | 'zed';

export interface ClientDef {
  id: ClientId;
  name: string;
  /** Other names `--client` accepts. */
  aliases: readonly string[];
  /** The user-level config file setup edits. */
  file(facts: PlatformFacts): string;
  /** A folder (or file) whose presence says the client is installed. */
  marker(facts: PlatformFacts): string;
  format: FileFormat;
  /** False when the client stores the key itself (VS Code's password input). */
  keyInFile: boolean;
  /** What to do, once configured, for the client to start the server: a clause of `nextSteps`. */
  toLoad: string;
}

function envPath(facts: PlatformFacts, name: string): string | undefined {
  const value = facts.env[name]?.trim();
  return value && isAbsolute(value) ? value : undefined;
}

/** %APPDATA% on Windows (Roaming). */
function appData(facts: PlatformFacts): string {
  return envPath(facts, 'APPDATA') ?? join(facts.home, 'AppData', 'Roaming');
}

/** Where desktop apps keep settings: ~/Library/Application Support, %APPDATA%, $XDG_CONFIG_HOME or ~/.config. */
function appConfig(facts: PlatformFacts): string {
  if (facts.platform === 'win32') return appData(facts);
  if (facts.platform === 'darwin') return join(facts.home, 'Library', 'Application Support');
  return envPath(facts, 'XDG_CONFIG_HOME') ?? join(facts.home, '.config');
}

const claudeDesktopFolder = (f: PlatformFacts): string => join(appConfig(f), 'Claude');
const claudeCodeFile = (f: PlatformFacts): string =>
  join(envPath(f, 'CLAUDE_CONFIG_DIR') ?? f.home, '.claude.json');
const vscodeFolder = (f: PlatformFacts): string => join(appConfig(f), 'Code', 'User');
const codexFolder = (f: PlatformFacts): string => envPath(f, 'CODEX_HOME') ?? join(f.home, '.codex');
/** Zed reads ~/.config/zed on macOS and Linux (XDG on Linux), %APPDATA%\Zed on Windows. */
const zedFolder = (f: PlatformFacts): string => {
  if (f.platform === 'win32') return join(appData(f), 'Zed');
  if (f.platform === 'darwin') return join(f.home, '.config', 'zed');
  return join(envPath(f, 'XDG_CONFIG_HOME') ?? join(f.home, '.config'), 'zed');
};

export const CLIENTS: readonly ClientDef[] = [
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    aliases: ['claude-desktop', 'claude_desktop', 'desktop'],
    file: (f) => join(claudeDesktopFolder(f), 'claude_desktop_config.json'),
    marker: claudeDesktopFolder,
    format: mcpServersJson('mcpServers'),
    keyInFile: true,
    toLoad: 'quit Claude Desktop fully (not just its window) and open it again',
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    aliases: ['claude-code', 'claude_code', 'claude'],
    // Used when the `claude` CLI is not on PATH; with it, `claude mcp add --scope user`.
    file: claudeCodeFile,
    marker: claudeCodeFile,
    format: mcpServersJson('mcpServers'),
    keyInFile: true,
    toLoad: 'start a new Claude Code session',
  },
  {
    id: 'cursor',
    name: 'Cursor',
    aliases: ['cursor'],
    file: (f) => join(f.home, '.cursor', 'mcp.json'),
    marker: (f) => join(f.home, '.cursor'),
    format: mcpServersJson('mcpServers'),
    keyInFile: true,
    toLoad: 'restart Cursor',
  },
  {
    id: 'vscode',
    name: 'VS Code',
    aliases: ['vscode', 'vs-code', 'code'],
    file: (f) => join(vscodeFolder(f), 'mcp.json'),
    marker: vscodeFolder,
    format: vscodeJson,
    keyInFile: false,
    toLoad: 'restart VS Code, which asks for the key the first time the server starts',
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    aliases: ['windsurf'],
    file: (f) => join(f.home, '.codeium', 'windsurf', 'mcp_config.json'),
    marker: (f) => join(f.home, '.codeium', 'windsurf'),
    format: mcpServersJson('mcpServers'),
    keyInFile: true,
    toLoad: 'restart Windsurf',
  },
  {
    id: 'codex',
    name: 'Codex',
    aliases: ['codex'],
    file: (f) => join(codexFolder(f), 'config.toml'),
    marker: codexFolder,
    format: codexToml,
    keyInFile: true,
    toLoad: 'start a new Codex session',
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    aliases: ['gemini', 'gemini-cli'],
    file: (f) => join(f.home, '.gemini', 'settings.json'),
    marker: (f) => join(f.home, '.gemini'),
    format: mcpServersJson('mcpServers'),
    keyInFile: true,
    toLoad: 'start a new Gemini CLI session',
  },
  {
    id: 'zed',
    name: 'Zed',
    aliases: ['zed'],
    file: (f) => join(zedFolder(f), 'settings.json'),
    marker: zedFolder,
    format: mcpServersJson('context_servers'),
    keyInFile: true,
    toLoad: 'restart Zed',
  },
];

/** A client's name as typed, with its spaces, underscores and case evened out: "VS Code" → vs-code. */
function nameKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
}

/** The client of an id, an alias, or the name the list shows ("VS Code", "Gemini CLI"). */
export function findClient(name: string): ClientDef | undefined {
  const wanted = nameKey(name);
  return CLIENTS.find((c) => c.id === wanted || c.aliases.includes(wanted) || nameKey(c.name) === wanted);
}

const CLIENT_NAMES = [...new Set(CLIENTS.flatMap((c) => [c.id, ...c.aliases]))];

/**
 * The `--client` name most like an unknown one (`cursr` → `cursor`), as `call` finds a tool's, but
 * stricter with short words: two edits turn "none" into "code", which no one meant.
 */
export function closestClientName(typed: string): string | undefined {
  const wanted = nameKey(typed);
  const closest = closestTool(wanted, CLIENT_NAMES);
  if (closest === undefined) return undefined;
  const words = (name: string) => name.split('-');
  const related =
    closest.startsWith(wanted) ||
    wanted.startsWith(closest) ||
    words(wanted).some((w) => words(closest).includes(w)) ||
    editDistance(wanted, closest) <= Math.max(1, Math.floor(wanted.length / 3));
  return related ? closest : undefined;
}

/**
 * The one line setup ends with: what to do for each client it configured, and for no other (the
 * Claude Desktop advice means nothing to a Cursor user). Undefined when none was configured.
 */
export function nextSteps(configured: readonly ClientDef[], server: string): string | undefined {
  const clauses = [...new Set(configured.map((c) => c.toLoad))];
  return clauses.length ? `Next, to load ${server}: ${clauses.join('; ')}.` : undefined;
}
