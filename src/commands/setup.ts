/**
 * `model-feed-mcp setup`: adds the server to the user's MCP clients (or, with --remove, takes it
 * out again). Finds the installed clients, asks which to configure, gets the base URL and the key,
 * checks the key against the service the way doctor does, and only then writes each client's own
 * format, merging into what is there. With no account (`--source public`, or Enter at the base URL
 * question), the entry starts the server on the public origins instead: no key, no base URL.
 * See docs/setup.md.
 */

import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { type Config, type ConfigFlags, ENV, resolveConfig, SOURCES, type SourceKind } from '../config.js';
import { describeError, describeFileError } from '../describe-error.js';
import { AuthError, ConfigError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { nodeFs } from '../lazy-node.js';
import { createLogger } from '../log.js';
import { checkTypedBaseUrl, shownAnswer, typedKeyProblem } from '../setup/answers.js';
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
import { maskSecretsInDiff } from '../setup/mask-secrets.js';
import { ConfigParseError, ConfigShapeError, UnusableFileError } from '../setup/problems.js';
import {
  askLine,
  askUntilValid,
  InputEnded,
  MAX_ANSWERS,
  PromptCancelled,
  parseChoice,
  readHidden,
  readPipedLine,
  TooManyAnswers,
  type TtyInput,
} from '../setup/prompt.js';
import { findLeftovers, WriteStopped } from '../setup/replace-file.js';
import { EXIT_BY_SIGNAL, noStopSignals, type StopSignals, watchStopSignals } from '../setup/stop-signals.js';
import {
  type ConfigFile,
  FileChanged,
  readConfig,
  readOnlyProblem,
  userOnly,
  writeConfig,
} from '../setup/write.js';
import type { PlatformFacts } from '../store/paths.js';
import { echoValue, redactSecrets } from '../text/redact.js';
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
  /** Handlers for SIGINT, SIGTERM and SIGHUP while setup runs. @default none (signals never come) */
  watchStopSignals?(): StopSignals;
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
    watchStopSignals: () =>
      watchStopSignals(() => {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
      }, io.stderr),
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

/** The service refused the key (401): at a terminal, where it was typed, it is asked for again. */
class KeyRejected extends Stop {
  constructor(
    readonly error: AuthError,
    secrets: readonly string[],
  ) {
    super(EXIT.failed, `${redactSecrets(describeError(error), secrets)}\nNothing was written.`);
  }
}

/** How to skip each question next time, said when setup stops on too many unusable answers. */
const SKIP_QUESTION: Record<string, string> = {
  'choice of clients': 'or name them with --client <name>',
  'base URL': `or give it with --base-url <url> (with no account: --source public)`,
  'API key': `or pipe it on stdin (\`printf '%s\\n' "$KEY" | model-feed-mcp setup …\`)`,
};

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
          `Unknown client "${echoValue(name, [])}".${closest ? ` Did you mean ${closest}?` : ''} Known clients: ${CLIENT_NAMES}.`,
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
        `No MCP client found in ${oneLine(facts.home)}. Name the clients to configure with --client <name> (${CLIENT_NAMES}).`,
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
      `  ${i + 1}. ${t.detected ? '*' : ' '} ${t.client.name}  ${t.claude ? `(claude mcp add)` : oneLine(t.file)}\n`,
    );
  });
  const defaults = targets.flatMap((t, i) => (t.detected ? [i] : []));
  const verb = flags.remove ? `Remove ${SERVER_NAME} from which?` : 'Configure which?';
  const question = `${verb} Numbers like 1,3, or all${defaults.length ? '; Enter for the ones marked *' : ''}: `;
  const indexOf = (name: string): number | undefined => {
    const client = findClient(name);
    const index = targets.findIndex((t) => t.client === client);
    return index === -1 ? undefined : index;
  };
  const picked = await askUntilValid<number[]>({
    what: 'choice of clients',
    ask: () => askLine(facts.stdin, io.stderr, question),
    check: (answer) => {
      const chosen = parseChoice(answer, targets.length, defaults, indexOf);
      if (chosen?.length) return { value: chosen };
      // A mistyped name gets the number of the client it most likely meant.
      const unknown = answer.split(/[\s,]+/).find((w) => w && !/^\d+$/.test(w) && indexOf(w) === undefined);
      const closest = unknown === undefined ? undefined : closestClientName(unknown);
      const hint = closest === undefined ? '' : ` (${indexOf(closest)! + 1} is ${findClient(closest)!.name})`;
      return {
        problem: `Not a choice: ${shownAnswer(answer)}. Type numbers from 1 to ${targets.length}${hint}, separated by commas, or all.`,
      };
    },
    write: io.stderr,
  });
  return picked.map((i) => targets[i]!);
}

/**
 * The key, checked with the service: MODEL_FEED_API_KEY, else a line piped on stdin, else typed at
 * the terminal with no echo. Only a typed key is asked for again (bounded) when it is unusable or
 * the service rejects it: the other two are fixed where they were set.
 */
async function obtainCheckedKey(
  flags: SetupFlags,
  io: CliIo,
  facts: SetupFacts,
  baseUrl: string,
  needKey: boolean,
): Promise<Config> {
  const fromEnv = io.env[ENV.apiKey]?.trim() || undefined;
  if (fromEnv !== undefined || !facts.stdin.isTTY) {
    const key = fromEnv ?? ((await readPipedLine(facts.stdin)) || undefined);
    if (needKey && key === undefined) {
      throw new Stop(
        EXIT.usage,
        `No API key: set ${ENV.apiKey}, pipe the key on stdin (e.g. \`printf '%s\\n' "$KEY" | model-feed-mcp setup …\`), or run setup in a terminal to type it. ${NO_ACCOUNT}`,
      );
    }
    return checkKey(flags, io, baseUrl, key, needKey);
  }
  return askUntilValid<Config>({
    what: 'API key',
    ask: () =>
      readHidden(
        facts.stdin,
        io.stderr,
        `API key (from the service's account screen; not shown${needKey ? '' : '; Enter to leave it out'}): `,
      ),
    check: async (typed) => {
      if (typed === '') {
        return needKey
          ? {
              problem: `No key typed: paste the key from the service's account screen. ${NO_ACCOUNT}`,
            }
          : { value: await checkKey(flags, io, baseUrl, undefined, needKey) };
      }
      const problem = typedKeyProblem(typed);
      if (problem) return { problem };
      try {
        return { value: await checkKey(flags, io, baseUrl, typed, needKey) };
      } catch (error) {
        if (!(error instanceof KeyRejected)) throw error;
        const words =
          error.error.serviceMessage && redactSecrets(oneLine(error.error.serviceMessage), [typed]);
        const said = words
          ? ` The service said: "${words}"${/[.!?]$/.test(words) ? '' : '.'}`
          : " It is wrong or revoked; a new one comes from the service's account screen.";
        return {
          problem: `The service rejected the key you typed (HTTP ${error.error.status}).${said}`,
          again: 'Type or paste it again, or press Ctrl-C to stop.',
        };
      }
    },
    write: io.stderr,
  });
}

/** What a person with no account answers at the base URL question: the public origins. */
const PUBLIC_DATA = Symbol('public data');

async function obtainBaseUrl(
  flags: SetupFlags,
  facts: SetupFacts,
  io: CliIo,
): Promise<string | typeof PUBLIC_DATA | undefined> {
  const given = flags.baseUrl?.trim() || io.env[ENV.baseUrl]?.trim();
  if (given) return given;
  if (!facts.stdin.isTTY) return undefined;
  // Judged here, where it is typed: once the key has been typed too, it is late to find that the
  // URL has no scheme, and a message about --base-url means nothing to someone who typed it.
  // The first question about an account: Enter there (with nothing offered) means there is none.
  return askUntilValid<string | typeof PUBLIC_DATA>({
    what: 'base URL',
    ask: (offer) =>
      askLine(
        facts.stdin,
        io.stderr,
        offer === undefined
          ? 'Service base URL (it comes with your account, e.g. https://<service host>; no account? press Enter to use public data, no key needed): '
          : `Service base URL [Enter for ${echoValue(offer, [])}]: `,
      ),
    check: (answer) => (answer === '' ? { value: PUBLIC_DATA } : checkTypedBaseUrl(answer)),
    write: io.stderr,
  });
}

/** How to go on without an account, said where a key or base URL is missing. */
const NO_ACCOUNT =
  'With no account, run `model-feed-mcp setup --source public`: real data from the public origins, no key.';

/**
 * `--source`, else MODEL_FEED_SOURCE: which source the written entry uses. `sample` is refused, as
 * `--sandbox` is: sample data needs no client config.
 */
function chosenSource(flags: SetupFlags, io: CliIo): SourceKind {
  const given = flags.source?.trim() || io.env[ENV.source]?.trim();
  const source = (given?.toLowerCase() ?? 'service') as SourceKind;
  if (!SOURCES.includes(source)) {
    throw new Stop(
      EXIT.usage,
      `${ENV.source} must be one of ${SOURCES.join(', ')}; got "${echoValue(given ?? '', [])}".`,
    );
  }
  if (flags.sandbox || source === 'sample') {
    throw new Stop(
      EXIT.usage,
      'setup configures clients for the real service or the public origins and does not take --sandbox (--source sample). To try the tools on sample data, run `model-feed-mcp call search_models --sandbox`.',
    );
  }
  return source;
}

/** The key as `--print` shows it: recognisable, not usable. */
function masked(text: string, key: string | undefined): string {
  if (!key) return text;
  const shown = `<${ENV.apiKey}: ${key.length >= 16 ? `${key.slice(0, 4)}…${key.slice(-4)}` : '…'}>`;
  return text.split(key).join(shown).split(JSON.stringify(key).slice(1, -1)).join(shown);
}

/**
 * A diff as `--print` shows it: the key given masked, and so is every key already in the file (the
 * one `--remove` takes out, the old one an add replaces), every other secret-looking value (other
 * servers' tokens), and nothing a terminal would obey. The file names are one line each.
 */
function shownDiff(
  before: string,
  after: string,
  beforeName: string,
  afterName: string,
  ctx: Pick<Context, 'key' | 'secrets'>,
): string {
  const diff = masked(lineDiff(before, after, oneLine(beforeName), oneLine(afterName)), ctx.key);
  // Masked where it stands (a short value masked everywhere would garble the diff). VS Code's
  // `${input:…}` reference and the `<your key>` placeholder are not keys.
  const inFile = diff.replace(
    /(MODEL_FEED_API_KEY"?\s*[:=]\s*")((?:[^"\\\n]|\\.)+)"/g,
    (all, head: string, value: string) =>
      /^(\$\{input:|<)/.test(value) ? all : `${head}${masked(value, value)}"`,
  );
  return terminalSafe(maskSecretsInDiff(redactSecrets(inFile, ctx.secrets)));
}

interface Context {
  facts: SetupFacts;
  io: CliIo;
  lib: FormatLib;
  print: boolean;
  key: string | undefined;
  /** What the settings hold that looks like a key (config.secrets): never shown. */
  secrets: readonly string[];
  /** The clients whose entry was added or changed: they need a restart, the others do not. */
  changed: Set<ClientDef>;
  stops: StopSignals;
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
  // Paths come from HOME and the XDG variables: one line each, whatever those hold.
  const say = (text: string): void => ctx.io.stdout(`${client.name}: ${oneLine(text)}\n`);
  const problem: Problem = (text) => {
    ctx.io.stderr(`${client.name}: ${oneLine(text)}\n`);
    return false;
  };
  let file: ConfigFile;
  try {
    file = await readConfig(target.file);
  } catch (error) {
    return fileProblem(problem, 'read', target.file, error);
  }
  const cleaned = await removeLeftovers(file.path, ctx, say, problem);
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
  if (after !== before) {
    const readOnly = await readOnlyProblem(file);
    if (readOnly) return problem(readOnly);
  }
  if (!entry) return (await removeFromFile(target, file, after, ctx, say, problem)) && cleaned;
  if (after === before) {
    say(`${file.path} already has this ${SERVER_NAME} entry; unchanged.`);
    return cleaned;
  }
  if (ctx.print) {
    ctx.io.stdout(
      shownDiff(before, after, file.text === undefined ? '/dev/null' : file.path, file.path, ctx),
    );
    return cleaned;
  }
  try {
    // The file now holds the key: user-only. A backup of a file without our entry holds no key of
    // ours and keeps the file's mode, which --remove restores from it.
    const had = holdsEntry(client, ctx.lib, before);
    const backup = await writeConfig(
      file,
      after,
      ctx.facts.now(),
      { mode: userOnly(file.mode), backupMode: had ? userOnly(file.mode) : file.mode },
      ctx.stops,
    );
    ctx.changed.add(client);
    const done = had ? `updated ${SERVER_NAME} in` : `added ${SERVER_NAME} to`;
    say(`${done} ${file.path}${backup ? ` (backup: ${backup})` : ''}`);
    return cleaned;
  } catch (error) {
    if (error instanceof WriteStopped) return problem(`stopped before writing; ${file.path} left unchanged.`);
    if (error instanceof FileChanged) return problem(changedMeanwhile(file.path, 'add'));
    return fileProblem(problem, 'write', file.path, error);
  }
}

function changedMeanwhile(path: string, doing: 'add' | 'remove'): string {
  return `${path} was changed by another program while setup was editing it; left that version as it is. Run setup again to ${doing} ${SERVER_NAME} ${doing === 'add' ? 'to' : 'from'} it.`;
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
    if (changed) ctx.io.stdout(shownDiff(file.text!, after, file.path, file.path, ctx));
    if (backups.holding.length) say(`would delete ${listed(backups.holding.map((b) => b.path))}`);
    if (!changed && !backups.holding.length) say(`${file.path} has no ${SERVER_NAME} entry; unchanged.`);
    return true;
  }
  if (changed) {
    try {
      await writeConfig(
        file,
        after,
        ctx.facts.now(),
        { mode: mode ?? userOnly(undefined), backupMode: undefined },
        ctx.stops,
      );
    } catch (error) {
      if (error instanceof WriteStopped)
        return problem(`stopped before writing; ${file.path} left unchanged.`);
      if (error instanceof FileChanged) return problem(changedMeanwhile(file.path, 'remove'));
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

/**
 * Deletes the temp files a setup that was killed left beside `path` (with --print, names them): a
 * config's temp file holds the key. Resolves false when one could not be deleted.
 */
async function removeLeftovers(
  path: string,
  ctx: Context,
  say: (text: string) => void,
  problem: Problem,
): Promise<boolean> {
  let ok = true;
  for (const leftover of await findLeftovers(path)) {
    const why = 'left by a setup that was stopped (it may hold a key)';
    if (ctx.print) {
      say(`would delete ${leftover}, ${why}.`);
      continue;
    }
    try {
      await nodeFs().rm(leftover, { force: true });
      say(`deleted ${leftover}, ${why}.`);
    } catch (error) {
      ok = fileProblem(problem, 'delete', leftover, error);
    }
  }
  return ok;
}

/** "1 backup that held it: a" / "2 backups that held it: a, b". */
function listed(paths: readonly string[]): string {
  const one = paths.length === 1;
  return `${paths.length} backup${one ? '' : 's'} that held it: ${paths.join(', ')}`;
}

/** Claude Code through `claude mcp add/remove --scope user`. */
async function applyWithClaude(
  client: ClientDef,
  claude: string,
  entry: ServerEntry | undefined,
  ctx: Context,
): Promise<boolean> {
  const shown = (args: readonly string[]): string =>
    terminalSafe(
      redactSecrets(
        masked(
          ['claude', ...args]
            .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
            .join(' '),
          ctx.key,
        ),
        ctx.secrets,
      ),
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
  ctx.changed.add(client);
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

/**
 * The entry of `--source public`: the source as an argument, no key, no base URL. An argument, not
 * MODEL_FEED_SOURCE in "env": every format replaces an entry's args whole but merges its env key
 * by key, so a later keyed setup over this entry leaves no `public` behind, and this one takes out
 * the key and base URL a keyed entry had (formats drop the managed variables an entry lacks).
 */
function publicEntryFor(launch: Launch): ServerEntry {
  return { command: launch.command, args: [...launch.args, '--source', 'public'], env: { ...launch.env } };
}

async function checkKey(
  flags: SetupFlags,
  io: CliIo,
  baseUrl: string,
  key: string | undefined,
  needKey: boolean,
) {
  // The key is checked with the service, whatever MODEL_FEED_SOURCE says in this shell.
  const config = resolveConfig(
    { ...flags, baseUrl, sandbox: false, diskCache: false, source: 'service' },
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
  // A key put in the base URL's path or the proxy's host is hidden, as call and doctor hide it.
  const shown = (text: string): string => redactSecrets(text, config.secrets);
  io.stderr(`Checking the key with ${shown(config.baseUrl)} …\n`);
  try {
    await authenticate(config, log);
  } catch (error) {
    if (error instanceof AuthError) throw new KeyRejected(error, config.secrets);
    throw new Stop(EXIT.failed, `${shown(describeError(error))}\nNothing was written.`);
  }
  io.stderr('The service accepted the key.\n');
  return config;
}

async function run(flags: SetupFlags, io: CliIo, facts: SetupFacts, stops: StopSignals): Promise<number> {
  const source = flags.remove ? 'service' : chosenSource(flags, io);
  const chosen = await chooseTargets(flags, findTargets(facts, io.env), facts, io);
  const lib = await facts.loadFormats();
  const ctx: Context = {
    facts,
    io,
    lib,
    print: flags.print === true,
    key: undefined,
    secrets: [],
    changed: new Set(),
    stops,
  };
  let entry: ServerEntry | undefined;
  let vscodeEntry: ServerEntry | undefined;
  const launch = () =>
    launchFor({
      platform: facts.platform,
      env: io.env,
      script: facts.script,
      nodePath: facts.nodePath,
      which: (name) => findOnPath(name, io.env, facts.platform, facts.isFile),
    });
  const baseUrl = flags.remove
    ? undefined
    : source === 'public'
      ? PUBLIC_DATA
      : await obtainBaseUrl(flags, facts, io);
  if (baseUrl === PUBLIC_DATA) {
    const how = launch();
    io.stderr(
      'Source: the public origins (real data recorded on this machine; no account, no key). Check them with `model-feed-mcp doctor --source public`.\n',
    );
    io.stderr(`Command: ${how.how}\n`);
    entry = publicEntryFor(how);
    vscodeEntry = entry;
  } else if (!flags.remove) {
    if (!baseUrl) {
      throw new Stop(
        EXIT.usage,
        `No service address: pass --base-url <url> or set ${ENV.baseUrl} (it comes with your account). ${NO_ACCOUNT}`,
      );
    }
    const keyInFile = chosen.some((t) => t.client.keyInFile);
    const needKey = keyInFile && !ctx.print;
    // VS Code alone asks for the key itself; one found in the environment is still checked.
    const config = keyInFile
      ? await obtainCheckedKey(flags, io, facts, baseUrl, needKey)
      : await checkKey(flags, io, baseUrl, io.env[ENV.apiKey]?.trim() || undefined, needKey);
    ctx.key = config.apiKey;
    ctx.secrets = config.secrets;
    const how = launch();
    io.stderr(`Command: ${how.how}\n`);
    entry = entryFor(how, config.baseUrl ?? baseUrl, config.apiKey);
    vscodeEntry = entryFor(how, config.baseUrl ?? baseUrl, undefined);
  }
  const configured: ClientDef[] = [];
  stops.holdForWrites();
  for (const target of chosen) {
    if (stops.received) break;
    const forClient = target.client.keyInFile ? entry : vscodeEntry;
    const ok = target.claude
      ? await applyWithClaude(target.client, target.claude, forClient, ctx)
      : await applyToFile(target, forClient, ctx);
    if (ok) configured.push(target.client);
  }
  if (stops.received) {
    const left = chosen.filter((t) => !configured.includes(t.client)).map((t) => t.client.name);
    io.stderr(
      `model-feed-mcp setup: stopped by ${stops.received}${left.length ? `; not done: ${left.join(', ')}` : ''}.\n`,
    );
    return EXIT_BY_SIGNAL[stops.received];
  }
  const next =
    flags.remove || ctx.print
      ? undefined
      : nextSteps(
          configured.filter((c) => ctx.changed.has(c)),
          SERVER_NAME,
        );
  if (next) io.stderr(`${next}\n`);
  return configured.length < chosen.length ? EXIT.failed : EXIT.ok;
}

export async function runSetup(
  flags: SetupFlags,
  io: CliIo,
  facts: SetupFacts = hostFacts(io),
): Promise<number> {
  const stops = facts.watchStopSignals?.() ?? noStopSignals();
  try {
    return await run(flags, io, facts, stops);
  } catch (error) {
    if (error instanceof Stop) {
      io.stderr(`model-feed-mcp setup: ${error.message}\n`);
      return error.code;
    }
    if (error instanceof PromptCancelled) {
      io.stderr('model-feed-mcp setup: cancelled; nothing was written.\n');
      return EXIT.failed;
    }
    if (error instanceof InputEnded) {
      io.stderr(
        'model-feed-mcp setup: input ended before the questions were answered; nothing was written.\n',
      );
      return EXIT.usage;
    }
    if (error instanceof TooManyAnswers) {
      io.stderr(
        `model-feed-mcp setup: no usable ${error.what} after ${MAX_ANSWERS} answers; nothing was written. Run setup again, ${SKIP_QUESTION[error.what] ?? ''}.\n`,
      );
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      io.stderr(`model-feed-mcp setup: ${describeError(error)}\n`);
      return EXIT.usage;
    }
    throw error;
  } finally {
    stops.dispose();
  }
}
