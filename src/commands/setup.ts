/**
 * `model-feed-mcp setup`: adds the server to the user's MCP clients (or, with --remove, takes it
 * out again). Finds the installed clients, asks which to configure, gets the base URL and the key,
 * checks the key against the service the way doctor does, and only then writes each client's own
 * format, merging into what is there. See docs/setup.md.
 */

import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { type ConfigFlags, ENV, resolveConfig } from '../config.js';
import { describeError, describeFileError } from '../describe-error.js';
import { ConfigError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { nodeFs } from '../lazy-node.js';
import { createLogger } from '../log.js';
import { findBackups, judgeBackups } from '../setup/backups.js';
import {
  claudeAddArgs,
  claudeRemoveArgs,
  type RunProgram,
  runProgram,
  spawnableClaude,
} from '../setup/clients/claude-cli.js';
import { CLIENTS, type ClientDef, closestClientName, findClient, nextSteps } from '../setup/clients/index.js';
import { lineDiff } from '../setup/diff.js';
import { type FormatLib, SERVER_NAME, type ServerEntry } from '../setup/entry.js';
import { findOnPath, type Launch, launchFor } from '../setup/launch.js';
import { ConfigParseError, ConfigShapeError, UnusableFileError } from '../setup/problems.js';
import {
  askLine,
  PromptCancelled,
  parseChoice,
  readHidden,
  readPipedLine,
  type TtyInput,
} from '../setup/prompt.js';
import { type ConfigFile, readConfig, userOnly, writeConfig } from '../setup/write.js';
import type { PlatformFacts } from '../store/paths.js';
import { oneLine, terminalSafe } from '../text/terminal.js';
import { authenticate } from './doctor.js';

export interface SetupFlags extends ConfigFlags {
  /** `--client`, repeatable, each value possibly a comma list. */
  client?: string[];
  yes?: boolean;
  print?: boolean;
  remove?: boolean;
}

/** Everything setup learns from the machine, gathered at the edge (hostFacts) or faked by tests. */
export interface SetupFacts {
  platform: NodeJS.Platform;
  home: string;
  /** The running script (process.argv[1]), symlinks resolved. */
  script: string | undefined;
  nodePath: string;
  stdin: TtyInput;
  now(): Date;
  isFile(path: string): boolean;
  exists(path: string): boolean;
  runProgram: RunProgram;
  /** The parsers' chunk, loaded on first use. */
  loadFormats(): Promise<FormatLib>;
}

/** The real machine. HOME (USERPROFILE on Windows) comes from the environment the CLI was given. */
export function hostFacts(io: CliIo): SetupFacts {
  const script = process.argv[1];
  let resolved = script;
  try {
    resolved = script === undefined ? undefined : realpathSync(script);
  } catch {
    // Keep the path as given.
  }
  const home =
    (process.platform === 'win32' ? io.env.USERPROFILE : io.env.HOME)?.trim() ||
    io.env.HOME?.trim() ||
    homedir();
  return {
    platform: process.platform,
    home,
    script: resolved,
    nodePath: process.execPath,
    stdin: process.stdin,
    now: () => new Date(),
    isFile: (path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    },
    exists: existsSync,
    runProgram,
    loadFormats: () => import('../setup/formats.js'),
  };
}

/** One client to configure, and how: its file, or the `claude` CLI. */
interface Target {
  client: ClientDef;
  file: string;
  /** The `claude` executable, for Claude Code when it can be run. */
  claude: string | undefined;
  detected: boolean;
}

function findTargets(facts: SetupFacts, env: CliIo['env']): Target[] {
  const platformFacts: PlatformFacts = { env, platform: facts.platform, home: facts.home };
  const claude = spawnableClaude(findOnPath('claude', env, facts.platform, facts.isFile), facts.platform);
  return CLIENTS.map((client) => {
    const viaCli = client.id === 'claude-code' ? claude : undefined;
    return {
      client,
      file: client.file(platformFacts),
      claude: viaCli,
      detected: viaCli !== undefined || facts.exists(client.marker(platformFacts)),
    };
  });
}

const CLIENT_NAMES = CLIENTS.map((c) => c.id).join(', ');

class Stop extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

async function chooseTargets(
  flags: SetupFlags,
  targets: Target[],
  facts: SetupFacts,
  io: CliIo,
): Promise<Target[]> {
  if (flags.client?.length) {
    const names = flags.client.flatMap((v) => v.split(',')).filter((v) => v.trim());
    return names.map((name) => {
      const client = findClient(name);
      if (!client) {
        const closest = closestClientName(name);
        throw new Stop(
          EXIT.usage,
          `Unknown client "${oneLine(name)}".${closest ? ` Did you mean ${closest}?` : ''} Known clients: ${CLIENT_NAMES}.`,
        );
      }
      return targets.find((t) => t.client === client)!;
    });
  }
  const detected = targets.filter((t) => t.detected);
  if (flags.yes) {
    if (!detected.length) {
      throw new Stop(
        EXIT.usage,
        `No MCP client found in ${facts.home}. Name the clients to configure with --client <name> (${CLIENT_NAMES}).`,
      );
    }
    return detected;
  }
  if (!facts.stdin.isTTY) {
    throw new Stop(
      EXIT.usage,
      `setup asks which clients to configure, but stdin is not a terminal. Name them with --client <name> (${CLIENT_NAMES}; repeat it or use a comma list), or take every client found with --yes.`,
    );
  }
  io.stderr('MCP clients (* = found on this machine):\n');
  targets.forEach((t, i) => {
    io.stderr(
      `  ${i + 1}. ${t.detected ? '*' : ' '} ${t.client.name}  ${t.claude ? `(claude mcp add)` : t.file}\n`,
    );
  });
  const defaults = targets.flatMap((t, i) => (t.detected ? [i] : []));
  for (;;) {
    const answer = await askLine(
      facts.stdin,
      io.stderr,
      `Configure which? Numbers like 1,3, or all${defaults.length ? '; Enter for the ones marked *' : ''}: `,
    );
    const picked = parseChoice(answer, targets.length, defaults);
    if (picked?.length) return picked.map((i) => targets[i]!);
    io.stderr(`Type numbers from 1 to ${targets.length}, separated by commas.\n`);
  }
}

/** The key: MODEL_FEED_API_KEY, else a line piped on stdin, else typed at the terminal with no echo. */
async function obtainKey(facts: SetupFacts, io: CliIo): Promise<string | undefined> {
  const fromEnv = io.env[ENV.apiKey]?.trim();
  if (fromEnv) return fromEnv;
  if (!facts.stdin.isTTY) return (await readPipedLine(facts.stdin)) || undefined;
  const typed = await readHidden(
    facts.stdin,
    io.stderr,
    "API key (from the service's account screen; not shown): ",
  );
  return typed || undefined;
}

async function obtainBaseUrl(flags: SetupFlags, facts: SetupFacts, io: CliIo): Promise<string | undefined> {
  const given = flags.baseUrl?.trim() || io.env[ENV.baseUrl]?.trim();
  if (given) return given;
  if (!facts.stdin.isTTY) return undefined;
  return (
    (await askLine(
      facts.stdin,
      io.stderr,
      'Service base URL (it comes with your account, e.g. https://<service host>): ',
    )) || undefined
  );
}

/** The key as `--print` shows it: recognisable, not usable. */
function masked(text: string, key: string | undefined): string {
  if (!key) return text;
  const shown = `<${ENV.apiKey}: ${key.length >= 16 ? `${key.slice(0, 4)}…${key.slice(-4)}` : '…'}>`;
  return text.split(key).join(shown).split(JSON.stringify(key).slice(1, -1)).join(shown);
}

/**
 * A diff as `--print` shows it: the key given masked, and so is every key already in the file (the
 * one `--remove` takes out, the old one an add replaces), and nothing a terminal would obey.
 */
function shownDiff(
  before: string,
  after: string,
  beforeName: string,
  afterName: string,
  key: string | undefined,
): string {
  const diff = masked(lineDiff(before, after, beforeName, afterName), key);
  // Masked where it stands (a short value masked everywhere would garble the diff). VS Code's
  // `${input:…}` reference and the `<your key>` placeholder are not keys.
  const inFile = diff.replace(
    /(MODEL_FEED_API_KEY"?\s*[:=]\s*")((?:[^"\\\n]|\\.)+)"/g,
    (all, head: string, value: string) =>
      /^(\$\{input:|<)/.test(value) ? all : `${head}${masked(value, value)}"`,
  );
  return terminalSafe(inFile);
}

interface Context {
  facts: SetupFacts;
  io: CliIo;
  lib: FormatLib;
  print: boolean;
  key: string | undefined;
}

/** Reports one client's problem on stderr; resolves false, as a client left alone. */
type Problem = (text: string) => false;

/** A file that could not be read, written or deleted, in words. */
function fileProblem(problem: Problem, doing: string, path: string, error: unknown): false {
  if (error instanceof UnusableFileError) return problem(`${error.message}; left it alone.`);
  const { reason, advice } = describeFileError(error);
  return problem(`cannot ${doing} ${path}: ${reason}; left it alone.${advice ? ` ${advice}` : ''}`);
}

/** Whether `text` holds our entry; a text that cannot be parsed counts when it names it. */
function holdsEntry(client: ClientDef, lib: FormatLib, text: string): boolean {
  try {
    return client.format.remove(text, lib) !== text;
  } catch {
    return text.includes(SERVER_NAME);
  }
}

/** Edits one client's file; resolves false when it was left alone because of a problem. */
async function applyToFile(target: Target, entry: ServerEntry | undefined, ctx: Context): Promise<boolean> {
  const { client } = target;
  const say = (text: string): void => ctx.io.stdout(`${client.name}: ${text}\n`);
  const problem: Problem = (text) => {
    ctx.io.stderr(`${client.name}: ${text}\n`);
    return false;
  };
  let file: ConfigFile;
  try {
    file = await readConfig(target.file);
  } catch (error) {
    return fileProblem(problem, 'read', target.file, error);
  }
  const before = file.text ?? '';
  let after = before;
  if (file.text !== undefined || entry) {
    try {
      after = entry ? client.format.add(before, entry, ctx.lib) : client.format.remove(before, ctx.lib);
    } catch (error) {
      if (error instanceof ConfigParseError) {
        return problem(
          `cannot parse ${file.path}:${error.line}:${error.column} (line ${error.line}: ${error.detail}); left it unchanged. Fix that line, then run setup again.`,
        );
      }
      if (error instanceof ConfigShapeError) {
        return problem(
          `${file.path}: ${error.message}; left it unchanged. Edit it by hand (see docs/setup.md).`,
        );
      }
      // A bug of ours, reported for this client alone: the other clients are still configured.
      return problem(`${file.path}: ${describeError(error, 'shell')} Left it unchanged.`);
    }
  }
  if (!entry) return removeFromFile(target, file, after, ctx, say, problem);
  if (after === before) {
    say(`${file.path} already has this ${SERVER_NAME} entry; unchanged.`);
    return true;
  }
  if (ctx.print) {
    ctx.io.stdout(
      shownDiff(before, after, file.text === undefined ? '/dev/null' : file.path, file.path, ctx.key),
    );
    return true;
  }
  try {
    // The file now holds the key: user-only. A backup of a file without our entry holds no key of
    // ours and keeps the file's mode, which --remove restores from it.
    const backup = await writeConfig(file, after, ctx.facts.now(), {
      mode: userOnly(file.mode),
      backupMode: holdsEntry(client, ctx.lib, before) ? userOnly(file.mode) : file.mode,
    });
    say(`added ${SERVER_NAME} to ${file.path}${backup ? ` (backup: ${backup})` : ''}`);
    return true;
  } catch (error) {
    return fileProblem(problem, 'write', file.path, error);
  }
}

/**
 * Writes the file without our entry and deletes the backups setup made that still hold it, so no
 * file setup wrote keeps the key. No backup is made: it would hold the key. The file gets back the
 * mode it had before setup added the entry, as the newest backup without the entry records it.
 */
async function removeFromFile(
  target: Target,
  file: ConfigFile,
  after: string,
  ctx: Context,
  say: (text: string) => void,
  problem: Problem,
): Promise<boolean> {
  const { client } = target;
  const backups = judgeBackups(await findBackups(file.path), (text) => holdsEntry(client, ctx.lib, text));
  const changed = file.text !== undefined && after !== file.text;
  const mode = backups.modeBefore ?? file.mode;
  if (ctx.print) {
    if (changed) ctx.io.stdout(shownDiff(file.text!, after, file.path, file.path, ctx.key));
    if (backups.holding.length) say(`would delete ${listed(backups.holding.map((b) => b.path))}`);
    if (!changed && !backups.holding.length) say(`${file.path} has no ${SERVER_NAME} entry; unchanged.`);
    return true;
  }
  if (changed) {
    try {
      await writeConfig(file, after, ctx.facts.now(), {
        mode: mode ?? userOnly(undefined),
        backupMode: undefined,
      });
    } catch (error) {
      return fileProblem(problem, 'write', file.path, error);
    }
  }
  const deleted: string[] = [];
  let ok = true;
  for (const backup of backups.holding) {
    try {
      await nodeFs().unlink(backup.path);
      deleted.push(backup.path);
    } catch (error) {
      ok = fileProblem(problem, 'delete', backup.path, error);
    }
  }
  const head =
    file.text === undefined
      ? `${target.file} does not exist; nothing to remove`
      : changed
        ? `removed ${SERVER_NAME} from ${file.path}${mode !== file.mode && mode !== undefined ? ` (mode ${mode.toString(8).padStart(4, '0')} again, as before setup)` : ''}`
        : `${file.path} has no ${SERVER_NAME} entry; unchanged`;
  say(`${head}${deleted.length ? `; deleted ${listed(deleted)}` : ''}.`);
  return ok;
}

/** "1 backup that held it: a" / "2 backups that held it: a, b". */
function listed(paths: readonly string[]): string {
  const one = paths.length === 1;
  return `${paths.length} backup${one ? '' : 's'} that held it: ${paths.join(', ')}`;
}

/** Claude Code through `claude mcp add/remove --scope user`. */
async function applyWithClaude(
  claude: string,
  entry: ServerEntry | undefined,
  ctx: Context,
): Promise<boolean> {
  const shown = (args: readonly string[]): string =>
    masked(
      ['claude', ...args]
        .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
        .join(' '),
      ctx.key,
    );
  const remove = claudeRemoveArgs();
  if (ctx.print) {
    ctx.io.stdout(
      `# Claude Code\n${shown(remove)}${entry ? `   # if already there\n${shown(claudeAddArgs(entry))}` : ''}\n`,
    );
    return true;
  }
  if (!entry) {
    const removed = await ctx.facts.runProgram(claude, remove);
    if (removed.code === 0)
      ctx.io.stdout(`Claude Code: removed ${SERVER_NAME} (claude mcp remove --scope user)\n`);
    else ctx.io.stdout(`Claude Code: no ${SERVER_NAME} entry in the user scope; unchanged.\n`);
    return true;
  }
  const failed = (output: string, removedOld: boolean) => {
    const lost = removedOld
      ? ` The previous ${SERVER_NAME} entry was removed to replace it: run setup again, or add it by hand (README, Claude Code).`
      : '';
    ctx.io.stderr(
      `Claude Code: \`claude mcp add\` failed: ${masked(terminalSafe(output.trim()), ctx.key)}${lost}\n`,
    );
    return false;
  };
  // Added first: an existing entry is removed only once `add` has said it is in the way, so a
  // failure for any other reason leaves the user's entry as it was.
  let added = await ctx.facts.runProgram(claude, claudeAddArgs(entry));
  if (added.code !== 0) {
    if (!/already exists/i.test(added.output)) return failed(added.output, false);
    const removed = await ctx.facts.runProgram(claude, remove);
    if (removed.code !== 0) return failed(added.output, false);
    added = await ctx.facts.runProgram(claude, claudeAddArgs(entry));
    if (added.code !== 0) return failed(added.output, true);
  }
  ctx.io.stdout(`Claude Code: added ${SERVER_NAME} (claude mcp add --scope user)\n`);
  return true;
}

function entryFor(launch: Launch, baseUrl: string, key: string | undefined): ServerEntry {
  return {
    command: launch.command,
    args: launch.args,
    env: { [ENV.apiKey]: key ?? '<your key>', [ENV.baseUrl]: baseUrl, ...launch.env },
  };
}

async function checkKey(
  flags: SetupFlags,
  io: CliIo,
  baseUrl: string,
  key: string | undefined,
  needKey: boolean,
) {
  const config = resolveConfig(
    { ...flags, baseUrl, sandbox: false, diskCache: false },
    { ...io.env, [ENV.baseUrl]: undefined, [ENV.apiKey]: key },
  );
  // No key is fine only where none is written (VS Code asks for it itself) or with --print.
  const keyMissing = config.setupError?.setting === ENV.apiKey && key === undefined;
  if (config.setupError && !(keyMissing && !needKey)) throw config.setupError;
  if (config.apiKey === undefined || config.baseUrl === undefined) return config;
  const log = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    secrets: config.secrets,
    write: io.stderr,
  });
  io.stderr(`Checking the key with ${config.baseUrl} …\n`);
  try {
    await authenticate(config, log);
  } catch (error) {
    throw new Stop(EXIT.failed, `${describeError(error)}\nNothing was written.`);
  }
  io.stderr('The service accepted the key.\n');
  return config;
}

async function run(flags: SetupFlags, io: CliIo, facts: SetupFacts): Promise<number> {
  if (flags.sandbox) {
    throw new Stop(
      EXIT.usage,
      'setup configures clients for the real service and does not take --sandbox. To try the tools on sample data, run `model-feed-mcp call search_models --sandbox`.',
    );
  }
  const chosen = await chooseTargets(flags, findTargets(facts, io.env), facts, io);
  const lib = await facts.loadFormats();
  const ctx: Context = { facts, io, lib, print: flags.print === true, key: undefined };
  let entry: ServerEntry | undefined;
  let vscodeEntry: ServerEntry | undefined;
  if (!flags.remove) {
    const baseUrl = await obtainBaseUrl(flags, facts, io);
    if (!baseUrl) {
      throw new Stop(
        EXIT.usage,
        `No service address: pass --base-url <url> or set ${ENV.baseUrl} (it comes with your account).`,
      );
    }
    const needKey = chosen.some((t) => t.client.keyInFile) && !ctx.print;
    const key = chosen.some((t) => t.client.keyInFile)
      ? await obtainKey(facts, io)
      : io.env[ENV.apiKey]?.trim() || undefined;
    if (needKey && key === undefined) {
      throw new Stop(
        EXIT.usage,
        `No API key: set ${ENV.apiKey}, pipe the key on stdin (e.g. \`printf '%s\\n' "$KEY" | model-feed-mcp setup …\`), or run setup in a terminal to type it.`,
      );
    }
    const config = await checkKey(flags, io, baseUrl, key, needKey);
    ctx.key = config.apiKey;
    const launch = launchFor({
      platform: facts.platform,
      env: io.env,
      script: facts.script,
      nodePath: facts.nodePath,
      which: (name) => findOnPath(name, io.env, facts.platform, facts.isFile),
    });
    io.stderr(`Command: ${launch.how}\n`);
    entry = entryFor(launch, config.baseUrl ?? baseUrl, config.apiKey);
    vscodeEntry = entryFor(launch, config.baseUrl ?? baseUrl, undefined);
  }
  const configured: ClientDef[] = [];
  for (const target of chosen) {
    const forClient = target.client.keyInFile ? entry : vscodeEntry;
    const ok = target.claude
      ? await applyWithClaude(target.claude, forClient, ctx)
      : await applyToFile(target, forClient, ctx);
    if (ok) configured.push(target.client);
  }
  const next = flags.remove || ctx.print ? undefined : nextSteps(configured, SERVER_NAME);
  if (next) io.stderr(`${next}\n`);
  return configured.length < chosen.length ? EXIT.failed : EXIT.ok;
}

export async function runSetup(
  flags: SetupFlags,
  io: CliIo,
  facts: SetupFacts = hostFacts(io),
): Promise<number> {
  try {
    return await run(flags, io, facts);
  } catch (error) {
    if (error instanceof Stop) {
      io.stderr(`model-feed-mcp setup: ${error.message}\n`);
      return error.code;
    }
    if (error instanceof PromptCancelled) {
      io.stderr('model-feed-mcp setup: cancelled; nothing was written.\n');
      return EXIT.failed;
    }
    if (error instanceof ConfigError) {
      io.stderr(`model-feed-mcp setup: ${describeError(error)}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
