/**
 * `model-feed-mcp setup`: adds the server to the user's MCP clients (or, with --remove, takes it
 * out again). Finds the installed clients, asks which to configure, gets the base URL and the key,
 * checks the key against the service the way doctor does, and only then writes each client's own
 * format, merging into what is there. With no account (`--source public`, or Enter at the base URL
 * question), the entry starts the server on the public origins instead: no key, no base URL.
 * See docs/setup.md.
 */

import { ENV } from '../../config.js';
import { describeError } from '../../describe-error.js';
import { ConfigError } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { ownCommand } from '../../own-command.js';
import { type ClientDef, nextSteps } from '../../setup/clients/index.js';
import { SERVER_NAME, type ServerEntry } from '../../setup/entry.js';
import { findOnPath, type Launch, launchFor } from '../../setup/launch.js';
import { InputEnded, MAX_ANSWERS, PromptCancelled, TooManyAnswers } from '../../setup/prompt.js';
import { EXIT_BY_SIGNAL, noStopSignals, type StopSignals } from '../../setup/stop-signals.js';
import { findTargets, hostFacts, type SetupFacts, type SetupFlags } from './facts.js';
import { chooseTargets, chosenSource, obtainAccount, PUBLIC_DATA, Stop } from './questions.js';
import { applyToFile, applyWithClaude, type Context } from './writes.js';

/** How to skip each question next time, said when setup stops on too many unusable answers. */
const SKIP_QUESTION: Record<string, string> = {
  'choice of clients': 'or name them with --client <name>',
  'base URL': `or give it with --base-url <url> (with no account: --source public)`,
  'API key': `or pipe it on stdin (\`printf '%s\\n' "$KEY" | ${ownCommand('setup …')}\`)`,
};

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
  const account = flags.remove
    ? undefined
    : await obtainAccount(flags, io, facts, {
        source,
        keyInFile: chosen.some((t) => t.client.keyInFile),
        print: ctx.print,
      });
  if (account === PUBLIC_DATA) {
    const how = launch();
    io.stderr(
      `Source: the public origins (real data recorded on this machine; no account, no key). Check them with \`${ownCommand('doctor --source public')}\`.\n`,
    );
    io.stderr(`Command: ${how.how}\n`);
    entry = publicEntryFor(how);
    vscodeEntry = entry;
  } else if (account) {
    const { config, baseUrl } = account;
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
      // Ctrl-C at the hidden prompt arrives as a key, not as SIGINT: the same words and status
      // as Ctrl-C at the other prompts (stop-signals.ts).
      io.stderr('model-feed-mcp setup: stopped by SIGINT; nothing was written.\n');
      return EXIT_BY_SIGNAL.SIGINT;
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
