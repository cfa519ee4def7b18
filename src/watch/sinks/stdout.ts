/**
 * The default sink: one line per change on stdout, and nothing else there (logs and the status line
 * go to stderr). The line is the JSON envelope, or in the text format the one-line rendering that
 * `list_model_changes` gives (change-line.ts) after its marking (`[new]`, `[update: …]`), for a
 * person at a terminal. Delivered means handed to the pipe; a reader that went away (`head`, a
 * closed pipe) is a permanent failure, so the cursor stays before the change.
 */

import type { Writable } from 'node:stream';
import { DeliveryError } from '../../errors.js';
import { envelopeJson } from '../../feed/envelope.js';
import { markedLine } from '../news-text.js';
import type { StdoutFormat } from '../options.js';
import type { StatusLine } from '../status.js';
import type { Sink } from './sink.js';

/**
 * `sharedTerminal`: the status line, when stdout and stderr are the same terminal.
 * `format`: the JSON envelope (byte for byte what every other sink gets), or a line of text.
 */
export function createStdoutSink(
  stream: Writable,
  sharedTerminal?: Pick<StatusLine, 'aside'>,
  format: StdoutFormat = 'json',
): Sink {
  let broken: Error | undefined;
  stream.on('error', (error) => {
    broken = error;
  });
  const closedError = () =>
    new DeliveryError(`stdout is closed (${(broken as NodeJS.ErrnoException)?.code ?? 'closed'})`, true);

  return {
    label: 'stdout',
    async deliver(delivery, signal) {
      if (broken || stream.destroyed) throw closedError();
      // Backpressure: a slow reader slows the watcher down instead of filling memory. Shutdown does
      // not wait for it: the line may be lost with the reader, and is delivered again next time.
      // The text line passed every upstream value through `inline`: one line, no escape sequence or
      // control character, so it can neither act on the terminal nor forge a line.
      const line = `${format === 'text' ? markedLine(delivery) : envelopeJson(delivery.envelope)}\n`;
      let accepted = true;
      const write = () => {
        accepted = stream.write(line);
      };
      if (sharedTerminal) sharedTerminal.aside(write);
      else write();
      if (!accepted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            stream.off('drain', done);
            stream.off('error', done);
            stream.off('close', done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          stream.on('drain', done).on('error', done).on('close', done);
          signal.addEventListener('abort', done, { once: true });
        });
      }
      if (signal.aborted) throw signal.reason;
      if (broken) throw closedError();
    },
    async flush() {
      if (broken || stream.destroyed) throw closedError();
      // An empty write's callback runs once everything before it has been handed to the OS.
      await new Promise<void>((resolve, reject) =>
        stream.write('', (error) => (error ? reject(closedError()) : resolve())),
      );
    },
    async close() {},
  };
}
