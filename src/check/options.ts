/**
 * `check`'s own flags, read and checked at the edge: every mistake is a ConfigError (exit 2) that
 * names the flag, what was given and what it takes. Pure but for the clock (`now`).
 */

import { ConfigError } from '../errors.js';
import { echoValue } from '../text/redact.js';
import { FINDING_KINDS, type FindingKind } from './findings.js';
import { type CheckFormat, FORMATS } from './format.js';

export interface CheckFlags {
  format?: string;
  failOn?: string;
  since?: string;
  maxFileSize?: string;
  baseline?: string;
  writeBaseline?: string;
  allowUnread?: boolean;
  suggest?: string;
}

export interface CheckOptions {
  paths: string[];
  format: CheckFormat;
  failOn: FindingKind[];
  /** Unix seconds: price increases are counted from then. */
  since: number;
  maxFileSizeBytes: number;
  baseline: string | undefined;
  writeBaseline: string | undefined;
  /** Pass (or fail on findings) even when a path, folder or file could not be read, or none was found. */
  allowUnread: boolean;
  /** Text lists a cheaper catalog model for each model named (`--suggest cheaper`). @default false */
  suggestCheaper: boolean;
}

/** What `--suggest` can add to the text report. */
export const SUGGESTIONS = ['cheaper'] as const;

export const DEFAULT_FAIL_ON: readonly FindingKind[] = ['deprecated', 'not_listed'];
export const DEFAULT_SINCE_DAYS = 30;
export const DEFAULT_MAX_FILE_SIZE_MIB = 4;
const DAY_S = 86_400;

const quoted = (value: string) => JSON.stringify(echoValue(value, []));

function parseFailOn(value: string | undefined): FindingKind[] {
  if (value === undefined) return [...DEFAULT_FAIL_ON];
  if (value.trim() === 'none') return [];
  const kinds = value.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    if (!(FINDING_KINDS as readonly string[]).includes(kind)) {
      throw new ConfigError(
        `--fail-on takes finding kinds separated by commas (${FINDING_KINDS.join(', ')}), or none; got ${quoted(kind)}.`,
        'fail-on',
        '--fail-on',
      );
    }
  }
  return [...new Set(kinds as FindingKind[])];
}

function parseSuggest(value: string | undefined): boolean {
  if (value === undefined) return false;
  const asked = value.split(',').map((what) => what.trim());
  for (const what of asked) {
    if (!(SUGGESTIONS as readonly string[]).includes(what) && what !== 'none') {
      throw new ConfigError(
        `--suggest takes ${SUGGESTIONS.join(', ')}, or none; got ${quoted(what)}.`,
        'suggest',
        '--suggest',
      );
    }
  }
  return asked.includes('cheaper');
}

/** A date (`2026-10-01`, midnight UTC) or a date and time with its zone, as Unix seconds. */
function parseSince(value: string | undefined, now: number): number {
  if (value === undefined) return Math.floor(now / 1000) - DEFAULT_SINCE_DAYS * DAY_S;
  const trimmed = value.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(trimmed);
  const ms = dateOnly ? Date.parse(`${trimmed}T00:00:00Z`) : dateTime ? Date.parse(trimmed) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new ConfigError(
      `--since takes a date, e.g. 2026-10-01, or a date and time with its zone, e.g. 2026-10-01T12:00:00Z; got ${quoted(value)}.`,
      'since',
      '--since',
    );
  }
  if (ms > now) {
    throw new ConfigError(
      `--since ${quoted(value)} is in the future: price increases are counted from a past date.`,
      'since',
      '--since',
    );
  }
  return Math.floor(ms / 1000);
}

function parseMaxFileSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_FILE_SIZE_MIB * 1024 * 1024;
  const mib = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(mib > 0) || mib > 1024) {
    throw new ConfigError(
      `--max-file-size takes a size in MiB from more than 0 to 1024, e.g. 4 or 0.5; got ${quoted(value)}.`,
      'max-file-size',
      '--max-file-size',
    );
  }
  return Math.floor(mib * 1024 * 1024);
}

export function parseCheckFlags(paths: readonly string[], flags: CheckFlags, now: number): CheckOptions {
  const format = flags.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new ConfigError(
      `--format takes ${FORMATS.join(', ')}; got ${quoted(format)}.`,
      'format',
      '--format',
    );
  }
  if (flags.baseline !== undefined && flags.writeBaseline !== undefined) {
    throw new ConfigError(
      '--baseline and --write-baseline go one at a time: --write-baseline records every current finding, --baseline checks against such a record.',
      'baseline',
      '--write-baseline',
    );
  }
  for (const [flag, value] of [
    ['--baseline', flags.baseline],
    ['--write-baseline', flags.writeBaseline],
  ] as const) {
    // An empty value would be taken for no flag at all: a baseline silently not read, or not written.
    if (value !== undefined && !value.trim()) {
      throw new ConfigError(`${flag} takes a file name; got an empty one.`, flag.slice(2), flag);
    }
  }
  const empty = paths.find((path) => !path.trim());
  if (empty !== undefined) {
    throw new ConfigError(
      `check takes files and folders to scan; one was given empty (${quoted(empty)}): an unset shell variable, perhaps.`,
      'paths',
    );
  }
  return {
    paths: paths.length ? [...paths] : ['.'],
    format: format as CheckFormat,
    failOn: parseFailOn(flags.failOn),
    since: parseSince(flags.since, now),
    maxFileSizeBytes: parseMaxFileSize(flags.maxFileSize),
    baseline: flags.baseline,
    writeBaseline: flags.writeBaseline,
    allowUnread: flags.allowUnread === true,
    suggestCheaper: parseSuggest(flags.suggest),
  };
}
