/**
 * The questions setup asks, each bounded and judged where it is typed: which clients, the base URL,
 * the key (checked with the service before anything is written), and the source.
 */

import { type Config, ENV, resolveConfig, SOURCES, type SourceKind } from '../../config.js';
import { describeError } from '../../describe-error.js';
import { authenticate } from '../../doctor/authenticate.js';
import { AuthError, NotFoundError } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { createLogger, type Logger } from '../../log.js';
import { ownCommand } from '../../own-command.js';
import { checkTypedBaseUrl, shownAnswer, typedKeyProblem } from '../../setup/answers.js';
import { CLIENTS, closestClientName, findClient } from '../../setup/clients/index.js';
import { SERVER_NAME } from '../../setup/entry.js';
import {
  askLine,
  askUntilValid,
  MAX_ANSWERS,
  parseChoice,
  readHidden,
  readPipedLine,
  TooManyAnswers,
} from '../../setup/prompt.js';
import { echoValue, redactSecrets } from '../../text/redact.js';
import { oneLine } from '../../text/terminal.js';
import type { SetupFacts, SetupFlags, Target } from './facts.js';
import { checkServiceAt, type NotTheService } from './reach.js';

const CLIENT_NAMES = CLIENTS.map((c) => c.id).join(', ');

export class Stop extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The base URL answered the key's check with 404: typed at the prompt, it is asked for again, and
 * the key given (`key`) is checked against the next one.
 */
class NotTheServiceAfterAll extends Stop {
  constructor(
    readonly problem: string,
    readonly key: string | undefined,
  ) {
    super(EXIT.failed, `${problem}\nNothing was written.`);
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

export async function chooseTargets(
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
export async function obtainCheckedKey(
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
        `No API key: set ${ENV.apiKey}, pipe the key on stdin (e.g. \`printf '%s\\n' "$KEY" | ${ownCommand('setup …')}\`), or run setup in a terminal to type it. ${noAccount()}`,
      );
    }
    return checkKey(flags, io, baseUrl, key, needKey);
  }
  let specialKeys = false;
  return askUntilValid<Config>({
    what: 'API key',
    ask: async () => {
      const answer = await readHidden(
        facts.stdin,
        io.stderr,
        `API key (from the service's account screen; not shown${needKey ? '' : '; Enter to leave it out'}): `,
      );
      specialKeys = answer.specialKeys;
      return answer.text;
    },
    check: async (typed) => {
      if (specialKeys) {
        return {
          problem:
            'What you typed (not shown) had an arrow key or another special key in it, which a key cannot hold; nothing was sent to the service.',
          again: 'Type or paste the key again, with Enter only at the end.',
        };
      }
      if (typed === '') {
        return needKey
          ? {
              problem: `No key typed: paste the key from the service's account screen. ${noAccount()}`,
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
export const PUBLIC_DATA = Symbol('public data');

export async function obtainBaseUrl(
  flags: SetupFlags,
  facts: SetupFacts,
  io: CliIo,
): Promise<string | typeof PUBLIC_DATA | undefined> {
  const given = flags.baseUrl?.trim() || io.env[ENV.baseUrl]?.trim();
  if (given) {
    // A base URL that is not the service stops setup before a key is asked for or checked.
    const wrong = await serviceProblem(flags, io, given);
    if (wrong) {
      const offer = wrong.offer ? ` Try ${wrong.offer}.` : '';
      throw new Stop(
        EXIT.failed,
        `${wrong.problem}${offer} Correct ${baseUrlOrigin(flags, io)} and run setup again.\nNothing was written.`,
      );
    }
    return given;
  }
  if (!facts.stdin.isTTY) return undefined;
  // Judged here, where it is typed: once the key has been typed too, it is late to find that the
  // URL has no scheme or is not the service, and a message about --base-url means nothing to
  // someone who typed it. The first question about an account: Enter there (with nothing
  // offered) means there is none.
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
    check: async (answer) => {
      if (answer === '') return { value: PUBLIC_DATA };
      const verdict = checkTypedBaseUrl(answer);
      if (!('value' in verdict)) return verdict;
      return (await serviceProblem(flags, io, verdict.value)) ?? verdict;
    },
    write: io.stderr,
  });
}

/**
 * Asks `baseUrl`, with no key, whether it is the service: undefined when it is, or when the
 * settings refuse it (that is said with their own words where the key is checked).
 */
async function serviceProblem(
  flags: SetupFlags,
  io: CliIo,
  baseUrl: string,
): Promise<NotTheService | undefined> {
  const config = checkingConfig(flags, io, baseUrl, undefined);
  if (config.baseUrl === undefined) return undefined;
  io.stderr(`Checking ${redactSecrets(oneLine(config.baseUrl), config.secrets)} …\n`);
  return checkServiceAt(config.baseUrl, config, checkingLog(config, io));
}

/**
 * The settings setup checks the base URL and the key with: those two as given, the service
 * whatever MODEL_FEED_SOURCE says in this shell, no disk cache. The base URL is passed as a flag
 * whatever its origin; a message about it names where it really came from.
 */
function checkingConfig(flags: SetupFlags, io: CliIo, baseUrl: string, key: string | undefined): Config {
  const config = resolveConfig(
    { ...flags, baseUrl, sandbox: false, diskCache: false, source: 'service' },
    { ...io.env, [ENV.baseUrl]: undefined, [ENV.apiKey]: key },
  );
  return { ...config, sources: { ...config.sources, baseUrl: baseUrlOrigin(flags, io) } };
}

function checkingLog(config: Config, io: CliIo): Logger {
  return createLogger({
    level: config.logLevel,
    format: config.logFormat,
    secrets: config.secrets,
    write: io.stderr,
  });
}

const TYPED_BASE_URL = 'The base URL you typed';

/** Where the base URL came from, as a message names it: the flag, the variable, or the prompt. */
function baseUrlOrigin(flags: SetupFlags, io: CliIo): string {
  if (flags.baseUrl?.trim()) return '--base-url';
  return io.env[ENV.baseUrl]?.trim() ? ENV.baseUrl : TYPED_BASE_URL;
}

/**
 * The account's base URL and key, checked with the service, or PUBLIC_DATA with no account. A
 * typed base URL the service answers with 404 once a key is given is asked for again, and the key
 * given is checked against the next one: a service may judge the key before the path, so the
 * check without a key (serviceProblem) could not tell. `keyInFile`: a chosen client's entry holds
 * the key (all but VS Code, which asks for it itself; one found in the environment is still checked).
 */
export async function obtainAccount(
  flags: SetupFlags,
  io: CliIo,
  facts: SetupFacts,
  { source, keyInFile, print }: { source: SourceKind; keyInFile: boolean; print: boolean },
): Promise<{ config: Config; baseUrl: string } | typeof PUBLIC_DATA> {
  const needKey = keyInFile && !print;
  let givenKey: string | undefined;
  for (let answers = 1; ; answers++) {
    const baseUrl = source === 'public' ? PUBLIC_DATA : await obtainBaseUrl(flags, facts, io);
    if (baseUrl === PUBLIC_DATA) return PUBLIC_DATA;
    if (!baseUrl) {
      throw new Stop(
        EXIT.usage,
        `No service address: pass --base-url <url> or set ${ENV.baseUrl} (it comes with your account). ${noAccount()}`,
      );
    }
    try {
      const config =
        givenKey !== undefined
          ? await checkKey(flags, io, baseUrl, givenKey, needKey)
          : keyInFile
            ? await obtainCheckedKey(flags, io, facts, baseUrl, needKey)
            : await checkKey(flags, io, baseUrl, io.env[ENV.apiKey]?.trim() || undefined, needKey);
      return { config, baseUrl };
    } catch (error) {
      if (!(error instanceof NotTheServiceAfterAll) || baseUrlOrigin(flags, io) !== TYPED_BASE_URL) {
        throw error;
      }
      if (answers >= MAX_ANSWERS) throw new TooManyAnswers('base URL', { problem: error.problem });
      io.stderr(`${error.problem}\n`);
      givenKey = error.key;
    }
  }
}

/** How to go on without an account, said where a key or base URL is missing. */
export function noAccount(): string {
  return `With no account, run \`${ownCommand('setup --source public')}\`: real data from the public origins, no key.`;
}

/**
 * `--source`, else MODEL_FEED_SOURCE: which source the written entry uses. `sample` is refused, as
 * `--sandbox` is: sample data needs no client config.
 */
export function chosenSource(flags: SetupFlags, io: CliIo): SourceKind {
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
      `setup configures clients for the real service or the public origins and does not take --sandbox (--source sample). To try the tools on sample data, run \`${ownCommand('call search_models --sandbox')}\`.`,
    );
  }
  return source;
}

export async function checkKey(
  flags: SetupFlags,
  io: CliIo,
  baseUrl: string,
  key: string | undefined,
  needKey: boolean,
) {
  const config = checkingConfig(flags, io, baseUrl, key);
  // No key is fine only where none is written (VS Code asks for it itself) or with --print.
  const keyMissing = config.setupError?.setting === ENV.apiKey && key === undefined;
  if (config.setupError && !(keyMissing && !needKey)) throw config.setupError;
  if (config.apiKey === undefined || config.baseUrl === undefined) return config;
  const log = checkingLog(config, io);
  // A key put in the base URL's path or the proxy's host is hidden, as call and doctor hide it.
  const shown = (text: string): string => redactSecrets(text, config.secrets);
  io.stderr(`Checking the key with ${shown(config.baseUrl)} …\n`);
  try {
    await authenticate(config, log);
  } catch (error) {
    if (error instanceof AuthError) throw new KeyRejected(error, config.secrets);
    if (error instanceof NotFoundError) throw new NotTheServiceAfterAll(shown(describeError(error)), key);
    throw new Stop(EXIT.failed, `${shown(describeError(error))}\nNothing was written.`);
  }
  io.stderr('The service accepted the key.\n');
  return config;
}
