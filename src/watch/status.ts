/**
 * The live status line on a terminal's stderr: last poll, cursor, changes delivered, next poll,
 * calls left today. Log lines are written above it, and so are change lines on stdout when stdout
 * is the same terminal (`aside`). When stderr is not a terminal there is no status line at all,
 * only the log.
 */

import { oneLine } from '../text/terminal.js';

export interface StatusFields {
  lastPoll: number | undefined;
  /** The saved cursor from the start, then each page's. */
  cursor: number | undefined;
  /** Changes delivered by this run (the state file counts every run's). */
  delivered: number;
  nextPoll: number | undefined;
  callsLeft: number | null | undefined;
  /** Why polling waits, e.g. "rate limited until 14:02:11". */
  note: string | undefined;
  /** With `--uses`: "n of m concern your code", this run's. */
  concerning?: string | undefined;
}

export interface StatusLine {
  /** Drawn on a terminal: what it shows (each poll's cursor and count) needs no log line of its own. */
  readonly live?: boolean;
  update(fields: Partial<StatusFields>): void;
  /** Writes a log line above the status line. */
  write(line: string): void;
  /**
   * Runs `write`, which writes a whole line to another stream on the same terminal (stdout), with
   * the status line cleared before and drawn again after: the line never runs into it.
   */
  aside(write: () => void): void;
  stop(): void;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Pure: the line as shown at `now`. */
export function renderStatus(fields: StatusFields, now: number): string {
  const parts = [
    `last poll ${fields.lastPoll === undefined ? '-' : clock(fields.lastPoll)}`,
    `cursor ${fields.cursor ?? '-'}`,
    `${fields.delivered} delivered`,
  ];
  if (fields.concerning) parts.push(fields.concerning);
  if (fields.nextPoll !== undefined) {
    const seconds = Math.max(0, Math.ceil((fields.nextPoll - now) / 1000));
    parts.push(`next poll ${clock(fields.nextPoll)} (in ${seconds} s)`);
  }
  if (fields.callsLeft !== undefined && fields.callsLeft !== null)
    parts.push(`${fields.callsLeft} calls left today`);
  if (fields.note) parts.push(fields.note);
  // Every part may hold upstream text (a note quoting an error): nothing in it may act on the
  // terminal, nor break the one line that is redrawn in place.
  return oneLine(`watch: ${parts.join(' · ')}`);
}

interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const CLEAR_LINE = '\r\x1b[2K';

export function createStatusLine(stream: Terminal, now: () => number = Date.now): StatusLine {
  if (!stream.isTTY) {
    return {
      live: false,
      update: () => {},
      write: (line) => void stream.write(line),
      aside: (write) => write(),
      stop: () => {},
    };
  }
  const fields: StatusFields = {
    lastPoll: undefined,
    cursor: undefined,
    delivered: 0,
    nextPoll: undefined,
    callsLeft: undefined,
    note: undefined,
  };
  let shown = false;
  /**
   * Drawn from the first update on, once the watcher knows where it is: log lines of the start
   * (the sandbox, the sink) come before it, and no "cursor -" stands for a cursor that is saved.
   */
  let started = false;
  /** After stop, lines still go out (a closing sink, a late log) but the status line is not drawn. */
  let stopped = false;
  const draw = () => {
    if (stopped || !started) return;
    const width = Math.max(20, (stream.columns ?? 100) - 1);
    const line = renderStatus(fields, now());
    stream.write(`${CLEAR_LINE}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    shown = true;
  };
  // The countdown to the next poll moves once a second; unref'd, it never keeps the process alive.
  const ticker = setInterval(draw, 1000);
  ticker.unref();
  return {
    live: true,
    update(changes) {
      Object.assign(fields, changes);
      started = true;
      draw();
    },
    write(line) {
      stream.write(shown ? `${CLEAR_LINE}${line}` : line);
      shown = false;
      draw();
    },
    aside(write) {
      if (shown) stream.write(CLEAR_LINE);
      shown = false;
      // Drawn again even when the write throws: the status line must not vanish for good.
      try {
        write();
      } finally {
        draw();
      }
    },
    stop() {
      stopped = true;
      clearInterval(ticker);
      if (shown) stream.write(`${CLEAR_LINE}`);
      shown = false;
    },
  };
}
