/**
 * The stderr logger. stdout belongs to JSON-RPC, so this is the only way the server speaks to a
 * person, often in a terminal. Every line passes through `redact` first, so the key never appears
 * at any level, and is then made terminal-safe: a log line quoting upstream text (an error body, a
 * title) cannot carry escape sequences, bidi overrides or a line break of its own.
 */

import type { LogFormat, LogLevel } from './log-options.js';
import { redact, withEscapedForms } from './text/redact.js';
import { escapeJsonText, oneLine } from './text/terminal.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /**
   * Values to hide wherever they appear: the key, and credential-shaped values found in any setting
   * (Config.secrets). Short values are ignored: they would mask noise.
   */
  secrets?: readonly (string | undefined)[];
  /** Where finished lines go. @default process.stderr */
  write?: (line: string) => void;
  now?: () => Date;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = SEVERITY[options.level];
  const secrets = withEscapedForms((options.secrets ?? []).filter((s): s is string => s !== undefined));
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());

  const log = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields): void => {
    if (SEVERITY[level] < threshold) return;
    let line: string;
    if (options.format === 'json') {
      const record: LogFields = { time: now().toISOString(), level, msg: message, ...fields };
      line = JSON.stringify(record, (_key, value: unknown) =>
        value instanceof Error ? { name: value.name, message: value.message } : value,
      );
    } else {
      const extra = fields
        ? Object.entries(fields)
            .filter(([, value]) => value !== undefined)
            .map(([key, value]) => ` ${key}=${formatValue(value)}`)
            .join('')
        : '';
      line = `model-feed-mcp ${level}: ${message}${extra}`;
    }
    // Made printable first, then redacted: stripping a control character out of a key must not put
    // it back together after redaction passed it by. JSON lines keep every character, escaped.
    const printable = options.format === 'json' ? escapeJsonText(line) : oneLine(line);
    write(`${redact(printable, secrets)}\n`);
  };

  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ level: 'silent', format: 'text', write: () => {} });
