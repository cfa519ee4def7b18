/**
 * What the listings cost a client's context, measured as the built CLI writes them: the exact
 * bytes of each answer's line on stdout (newline included), over a raw stdio session, not a
 * re-serialisation, which could differ from what the transport sends in key order or escaping.
 *
 * Figures when written: tools/list 4,798 bytes; prompts/list 776 + resources/list 256 +
 * resources/templates/list 269 = 1,301 bytes. Each line is the answer to a request with a
 * one-digit id, as a client's first requests are.
 */

import { describe, expect, it } from 'vitest';
import { INITIALIZE, INITIALIZED, request, scrubbedEnv, spawnRaw } from './harness.js';

/** The line on stdout that answers request `id`, as bytes, with its newline. */
function answerLine(stdout: Buffer, id: number): Buffer {
  let start = 0;
  for (let end = stdout.indexOf(0x0a); end !== -1; end = stdout.indexOf(0x0a, start)) {
    const line = stdout.subarray(start, end + 1);
    if ((JSON.parse(line.toString('utf8')) as { id?: unknown }).id === id) return line;
    start = end + 1;
  }
  throw new Error(`no answer to id ${id} on stdout`);
}

describe('context cost of the listings, as written to stdout (built CLI, stdio)', () => {
  it('tools/list within 4,800 bytes; prompts, resources and templates within 2,000 together', async () => {
    // No key and no base URL: the listings need neither, and nothing leaves the process.
    const raw = spawnRaw(scrubbedEnv());
    try {
      raw.send(INITIALIZE);
      raw.send(INITIALIZED);
      const methods = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
      for (const [i, method] of methods.entries()) raw.send(request(i + 1, method));
      for (let id = 1; id <= methods.length; id++) expect(await raw.answer(id)).toHaveProperty('result');

      const [tools, ...others] = methods.map((_, i) => answerLine(raw.stdoutBytes(), i + 1).length);
      expect(tools).toBeLessThanOrEqual(4800);
      expect(others.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThanOrEqual(2000);
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});
