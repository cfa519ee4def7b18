/**
 * Setup's writes: each client's entry added to or taken out of its own file (merged into what is
 * there, with backups), or through the `claude` CLI; with --print, shown instead, secrets masked.
 */

import { dirname } from 'node:path';
import { ENV } from '../../config.js';
import { describeError, describeFileError } from '../../describe-error.js';
import { docsUrl } from '../../docs-links.js';
import type { CliIo } from '../../io.js';
import { nodeFs } from '../../lazy-node.js';
import { findBackups, judgeBackups } from '../../setup/backups.js';
import { claudeAddArgs, claudeRemoveArgs } from '../../setup/clients/claude-cli.js';
import type { ClientDef } from '../../setup/clients/index.js';
import { lineDiff } from '../../setup/diff.js';
import { type FormatLib, SERVER_NAME, type ServerEntry } from '../../setup/entry.js';
import { maskSecretsInDiff } from '../../setup/mask-secrets.js';
import { ConfigParseError, ConfigShapeError, UnusableFileError } from '../../setup/problems.js';
import { findLeftovers, WriteStopped } from '../../setup/replace-file.js';
import type { StopSignals } from '../../setup/stop-signals.js';
import {
  type ConfigFile,
  FileChanged,
  readConfig,
  readOnlyProblem,
  userOnly,
  writeConfig,
} from '../../setup/write.js';
import { redactSecrets } from '../../text/redact.js';
import { oneLine, terminalSafe } from '../../text/terminal.js';
import type { SetupFacts, Target } from './facts.js';

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

export interface Context {
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

/**
 * The folder that refused a write: a file is replaced by a new one made beside it (atomic rename),
 * which needs the folder's write permission, not the file's. Undefined when the folder is writable.
 */
function unwritableFolder(path: string, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EACCES' && code !== 'EPERM') return undefined;
  const fs = process.getBuiltinModule('node:fs');
  let real = path;
  try {
    real = fs.realpathSync(path);
  } catch {
    // Not there yet, or not reachable: its folder as written.
  }
  try {
    fs.accessSync(dirname(real), fs.constants.W_OK);
    return undefined;
  } catch {
    return dirname(real);
  }
}

/** A file that could not be read, written or deleted, in words. */
function fileProblem(problem: Problem, doing: string, path: string, error: unknown): false {
  if (error instanceof UnusableFileError) return problem(`${error.message}; left it alone.`);
  const folder = doing === 'write' ? unwritableFolder(path, error) : undefined;
  if (folder !== undefined) {
    const code = (error as NodeJS.ErrnoException).code;
    return problem(
      `cannot write ${path}: its folder ${oneLine(folder)} does not let this user create files in it (${code}); left it alone. Check the folder's owner and mode, or run setup as the user whose folder it is.`,
    );
  }
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
export async function applyToFile(
  target: Target,
  entry: ServerEntry | undefined,
  ctx: Context,
): Promise<boolean> {
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
          `${file.path}: ${error.message}; left it unchanged. Edit it by hand (see ${docsUrl('setup')}).`,
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
export async function applyWithClaude(
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
