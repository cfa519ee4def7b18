/**
 * `--jsonl <file>`: the envelopes appended as JSON lines, fsynced before the cursor moves past
 * them. A line cut short by a crash is closed with a newline on the next start, so every later line
 * still parses on its own.
 */

import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DeliveryError } from '../../errors.js';
import { envelopeJson } from '../../feed/envelope.js';
import { nodeFs } from '../../lazy-node.js';
import { ensureFolder, FILE_MODE } from '../../store/atomic-file.js';
import type { Sink } from './sink.js';

async function endsWithNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

export async function createJsonlSink(path: string): Promise<Sink> {
  await ensureFolder(dirname(path));
  const handle = await nodeFs().open(path, 'a+', FILE_MODE);
  let pending: string[] = [];
  if (!(await endsWithNewline(handle))) pending.push('\n');
  const fail = (error: unknown) =>
    new DeliveryError(`cannot append to ${path}: ${(error as Error).message}`, false);

  return {
    label: `jsonl ${path}`,
    async deliver({ envelope }) {
      // Buffered and written with the page: one write and one fsync per page, not per change.
      pending.push(`${envelopeJson(envelope)}\n`);
    },
    async flush() {
      if (pending.length === 0) return;
      const text = pending.join('');
      const { size } = await handle.stat();
      try {
        await handle.appendFile(text);
        await handle.sync();
      } catch (error) {
        // Part of the page may have been written (a full disk): taken back, so that the retry's
        // first line does not run on from a torn one.
        await handle.truncate(size).catch(() => {});
        throw fail(error);
      }
      pending = [];
    },
    async close() {
      await handle.close();
    },
  };
}
