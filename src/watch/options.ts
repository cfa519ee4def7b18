/**
 * The `watch` flags, checked and turned into one typed plan. Every mistake is a ConfigError that
 * names the flag, what was given and what is allowed: the CLI prints it and exits 2.
 */

import { isAbsolute, resolve } from 'node:path';
import { isPlainChangeId } from '../api/page-glimpse.js';
import { EVENT_TYPES } from '../api/schemas.js';
import { ConfigError } from '../errors.js';
import type { FeedFilters } from '../feed/follower.js';
import { ownCommand } from '../own-command.js';
import { echoValue } from '../text/redact.js';
import { parseWebhookUrl } from './sinks/webhook.js';
import { parseWebhookSecret, WEBHOOK_SECRET_ENV } from './webhook-signature.js';

export interface WatchFlags {
  type?: string;
  model?: string;
  since?: string;
  state?: string;
  interval?: string;
  once?: boolean;
  maxAttempts?: string;
  skip?: string;
  reset?: boolean;
  uses?: string[];
  format?: string;
  jsonl?: string;
  exec?: string;
  webhook?: string;
  webhookFormat?: string;
  atom?: string;
  atomUrl?: string;
}

/** How the stdout sink writes a change: the JSON envelope, or one line of text for a person. */
export type StdoutFormat = 'text' | 'json';

export type SinkChoice =
  /** `format`: as `--format` gave it; absent, text when stdout is a terminal and JSON otherwise. */
  | { kind: 'stdout'; format?: StdoutFormat }
  | { kind: 'jsonl'; path: string }
  | { kind: 'exec'; command: string }
  | {
      kind: 'webhook';
      url: URL;
      format: 'standard' | 'slack';
      /** Required for the standard format; the slack format signs too when one is set. */
      secret: Buffer | undefined;
      /** As given, so that logs can hide it. */
      rawSecret: string | undefined;
    }
  /** `selfUrl`: the feed's address (`--atom-url`), normalised; absent when not given. */
  | { kind: 'atom'; path: string; selfUrl?: string };

export interface WatchOptions {
  filters: FeedFilters;
  /** Where to start when no cursor is saved (or with `reset`): a change time, or the newest change at start. */
  since: number | 'now';
  /** Whether `--since` was given, not defaulted: a saved cursor then overrides it, and the watcher says so. */
  sinceGiven: boolean;
  /** `--reset`: the saved state is moved aside as a backup, and the watcher starts from `since`. */
  reset: boolean;
  /** Absolute path of the state file; undefined: the default one for this feed. */
  statePath: string | undefined;
  /** Seconds between polls; undefined: from the tier. */
  intervalS: number | undefined;
  once: boolean;
  maxAttempts: number;
  /** The id of the one unreadable change to move past, undelivered; undefined: none. */
  skip: string | undefined;
  /**
   * `--uses`: paths (absolute) whose code names the models to deliver changes about; empty: every
   * change is delivered.
   */
  uses: string[];
  sink: SinkChoice;
}

export const DEFAULT_MAX_ATTEMPTS = 10;
const MAX_INTERVAL_S = 86_400;

/** Quotes a value back, with the configured secrets hidden: people paste keys into the wrong flag. */
type Shown = (raw: string) => string;

function fail(flag: string, message: string): never {
  throw new ConfigError(`${flag} ${message}`, flag, flag);
}

function wholeNumber(
  raw: string,
  flag: string,
  min: number,
  max: number,
  what: string,
  shown: Shown,
): number {
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    fail(flag, `must be ${what}; got ${shown(raw)}.`);
  }
  return value;
}

function parseSince(raw: string | undefined, shown: Shown): number | 'now' {
  if (raw === undefined || raw.trim().toLowerCase() === 'now') return 'now';
  return wholeNumber(
    raw,
    '--since',
    0,
    Number.MAX_SAFE_INTEGER,
    'a Unix time in seconds (0 = the whole history) or "now"',
    shown,
  );
}

function parseType(raw: string | undefined, shown: Shown): string | undefined {
  if (raw === undefined) return undefined;
  const type = raw.trim();
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    fail('--type', `must be one of ${EVENT_TYPES.join(', ')}; got ${shown(raw)}.`);
  }
  return type;
}

function parseModel(raw: string | undefined, shown: Shown): string | undefined {
  if (raw === undefined) return undefined;
  const model = raw.trim();
  const vendor = model.split('/')[0];
  if (model.includes('/') && vendor && /^[\w.-]{1,100}$/.test(vendor)) {
    fail(
      '--model',
      `takes a vendor slug (here ${vendor}), not a model id; got ${shown(raw)}. Use --model ${vendor}; call get_model gives one model.`,
    );
  }
  if (!/^[\w.-]{1,100}$/.test(model)) {
    fail('--model', `must be a vendor slug such as openai or meta-llama; got ${shown(raw)}.`);
  }
  return model;
}

function parsePath(raw: string | undefined, flag: string, cwd: string): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '' || raw.includes('\0'))
    fail(flag, flag === '--uses' ? 'needs a file or folder path.' : 'needs a file path.');
  return isAbsolute(raw) ? raw : resolve(cwd, raw);
}

/** `--skip`: a change id as the watcher names it when it stops on one it cannot read. */
function parseSkip(raw: string | undefined, shown: Shown): string | undefined {
  if (raw === undefined) return undefined;
  const id = raw.trim();
  if (!isPlainChangeId(id)) {
    fail(
      '--skip',
      `must be the id of the change the watcher could not read, as its message names it (letters, digits and ._:- only); got ${shown(raw)}.`,
    );
  }
  return id;
}

/** `--atom-url`: published in the feed, so an absolute http(s) URL and no credentials in it. */
function parseAtomUrl(raw: string, shown: Shown): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {}
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    fail(
      '--atom-url',
      `must be an absolute http(s) URL, the address feed readers fetch the feed from, e.g. https://example.com/changes.atom; got ${shown(raw)}.`,
    );
  }
  if (url.username || url.password)
    fail('--atom-url', 'is published in the feed: leave credentials out of it.');
  return url.href;
}

type Env = Readonly<Record<string, string | undefined>>;

function chooseSink(flags: WatchFlags, cwd: string, env: Env, shown: Shown): SinkChoice {
  const given = (['jsonl', 'exec', 'webhook', 'atom'] as const).filter((name) => flags[name] !== undefined);
  if (given.length > 1) {
    fail(
      `--${given[0]}`,
      `and --${given[1]} were both given; each change goes to one place: choose one sink (run two watchers with their own --state for two).`,
    );
  }
  if (flags.webhookFormat !== undefined && flags.webhook === undefined) {
    fail('--webhook-format', 'applies only with --webhook <url>.');
  }
  if (flags.atomUrl !== undefined && flags.atom === undefined) {
    fail('--atom-url', 'applies only with --atom <file>.');
  }
  if (flags.format !== undefined && given.length > 0) {
    fail(
      '--format',
      `applies only to stdout; --${given[0]} gets the JSON envelope${given[0] === 'webhook' ? ' (or, with --webhook-format slack, one line of text)' : ''}.`,
    );
  }
  if (flags.jsonl !== undefined)
    return { kind: 'jsonl', path: parsePath(flags.jsonl, '--jsonl', cwd) as string };
  if (flags.atom !== undefined) {
    const path = parsePath(flags.atom, '--atom', cwd) as string;
    return flags.atomUrl === undefined
      ? { kind: 'atom', path }
      : { kind: 'atom', path, selfUrl: parseAtomUrl(flags.atomUrl, shown) };
  }
  if (flags.exec !== undefined) {
    if (flags.exec.trim() === '') fail('--exec', 'needs a command, e.g. --exec "./notify.sh".');
    return { kind: 'exec', command: flags.exec };
  }
  if (flags.webhook !== undefined) {
    const format = flags.webhookFormat ?? 'standard';
    if (format !== 'standard' && format !== 'slack') {
      fail('--webhook-format', `must be standard or slack; got ${shown(format)}.`);
    }
    const rawSecret = env[WEBHOOK_SECRET_ENV]?.trim() || undefined;
    const secret = format === 'standard' || rawSecret ? parseWebhookSecret(rawSecret) : undefined;
    return { kind: 'webhook', url: parseWebhookUrl(flags.webhook), format, secret, rawSecret };
  }
  if (flags.format === undefined) return { kind: 'stdout' };
  const format = flags.format.trim().toLowerCase();
  if (format !== 'text' && format !== 'json')
    fail('--format', `must be text or json; got ${shown(flags.format)}.`);
  return { kind: 'stdout', format };
}

export interface ParseContext {
  cwd: string;
  /** The environment, for MODEL_FEED_WEBHOOK_SECRET (the config layer reads no other). */
  env: Env;
  /** Values no message may quote: Config.secrets. */
  secrets: readonly string[];
  /** `--sandbox`: the in-process sandbox, new on every run, whose cursor is never saved. */
  sandbox?: boolean;
}

export function parseWatchFlags(
  flags: WatchFlags,
  { cwd, env, secrets, sandbox = false }: ParseContext,
): WatchOptions {
  const shown: Shown = (raw) => `"${echoValue(raw, secrets)}"`;
  // A cursor saved with one in-process sandbox does not fit the next: each is new, so none is kept,
  // and a flag about the saved state would be a promise not kept.
  for (const flag of ['state', 'reset'] as const) {
    if (sandbox && flags[flag] !== undefined && flags[flag] !== false) {
      fail(
        `--${flag}`,
        `does not apply with --sandbox: each in-process sandbox is new, so its cursor is not saved and every run starts from --since. To try a restart, watch a standalone sandbox (\`${ownCommand('sandbox --live 5')}\`) through --base-url and its key.`,
      );
    }
  }
  return {
    filters: { type: parseType(flags.type, shown), model: parseModel(flags.model, shown) },
    since: parseSince(flags.since, shown),
    sinceGiven: flags.since !== undefined,
    reset: flags.reset === true,
    statePath: parsePath(flags.state, '--state', cwd),
    intervalS:
      flags.interval === undefined
        ? undefined
        : wholeNumber(
            flags.interval,
            '--interval',
            1,
            MAX_INTERVAL_S,
            'a whole number of seconds from 1 to 86400',
            shown,
          ),
    once: flags.once === true,
    maxAttempts:
      flags.maxAttempts === undefined
        ? DEFAULT_MAX_ATTEMPTS
        : wholeNumber(flags.maxAttempts, '--max-attempts', 1, 1000, 'a whole number from 1 to 1000', shown),
    skip: parseSkip(flags.skip, shown),
    uses: (flags.uses ?? []).map((path) => parsePath(path, '--uses', cwd) as string),
    sink: chooseSink(flags, cwd, env, shown),
  };
}
