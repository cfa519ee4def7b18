/**
 * `--jsonl <file>`: the envelopes appended as JSON lines, fsynced before the cursor moves past
 * them. A line cut short by a crash is closed with a newline on the next start, so every later line
 * still parses on its own.
 */

import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../../errors.js';
import { envelopeJson } from '../../feed/envelope.js';
import { nodeFs } from '../../lazy-node.js';
import { ensureFolder, FILE_MODE } from '../../store/atomic-file.js';
import { fileFault } from '../../store/file-fault.js';
import { notRegular } from '../../store/open-regular.js';
import { echoPath } from '../../text/redact.js';
import type { Sink } from './sink.js';

async function endsWithNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * The file at `path`, opened to append. Opened without blocking and judged on the descriptor:
 * appending to a FIFO would block once its buffer filled, and a device or a folder is no log.
 */
async function openLog(path: string): Promise<FileHandle> {
  const { constants } = process.getBuiltinModule('node:fs');
  let handle: FileHandle;
  try {
    await ensureFolder(dirname(path));
    handle = await nodeFs().open(
      path,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0),
      FILE_MODE,
    );
  } catch (error) {
    throw fileFault(error, 'open the JSONL file', path, '--jsonl');
  }
  // A file the user named, shared or not: only its kind matters (a FIFO would block every append).
  const reason = notRegular(await handle.stat());
  if (reason !== undefined) {
    await handle.close();
    throw new ConfigError(
      `--jsonl ${echoPath(path)} ${reason}: give the path of a regular file, or of none yet.`,
      '--jsonl',
      '--jsonl',
    );
  }
  return handle;
}

/**
 * Whether `path` still names the file `handle` has open. Log rotation moves the file away (and may
 * delete it) or puts another in its place: appending to the old one would lose every later line.
 */
async function stillAt(handle: FileHandle, path: string): Promise<boolean> {
  const open = await handle.stat();
  const now = await nodeFs()
    .stat(path)
    .catch(() => undefined);
  return now !== undefined && now.dev === open.dev && now.ino === open.ino;
}

/**
 * `warn`: told when part of a failed page could not be taken back (an append-only file), so the
 * retry will repeat it.
 */
export async function createJsonlSink(path: string, warn: (message: string) => void): Promise<Sink> {
  let handle = await openLog(path);
  /** The file ends with a line cut short by a crash: closed with a newline before the next one. */
  let torn = !(await endsWithNewline(handle));
  let pending: string[] = [];

  return {
    label: `jsonl ${echoPath(path)}`,
    async deliver({ envelope }) {
      // Buffered and written with the page: one write and one fsync per page, not per change.
      pending.push(`${envelopeJson(envelope)}\n`);
    },
    async flush() {
      if (pending.length === 0) return;
      if (!(await stillAt(handle, path))) {
        // The old handle stays until the new file is open and judged: a retry then tries again.
        const reopened = await openLog(path);
        let endsClean: boolean;
        try {
          endsClean = await endsWithNewline(reopened);
        } catch (error) {
          await reopened.close().catch(() => {});
          throw error;
        }
        const moved = handle;
        handle = reopened;
        torn = !endsClean;
        await moved.close().catch(() => {});
      }
      const text = `${torn ? '\n' : ''}${pending.join('')}`;
      const { size } = await handle.stat();
      try {
        await handle.appendFile(text);
        await handle.sync();
      } catch (error) {
        // Part of the page may have been written (a full disk): taken back, so that the retry's
        // first line does not run on from a torn one.
        await handle.truncate(size).catch(async (refused: NodeJS.ErrnoException) => {
          const left = (await handle.stat().catch(() => ({ size })))?.size - size;
          if (left > 0)
            warn(
              `could not take back the ${left} bytes of a failed page appended to ${echoPath(path)} (${refused.code ?? refused.message}): the next delivery repeats those changes (deduplicate on deliveryId)`,
            );
        });
        // What stays may end in a cut line: the retry closes it first.
        torn = !(await endsWithNewline(handle).catch(() => false));
        throw fileFault(error, 'append to', path, '--jsonl');
      }
      pending = [];
      torn = false;
    },
    async close() {
      await handle.close();
    },
  };
}
