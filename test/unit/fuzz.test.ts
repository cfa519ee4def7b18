/** Random input at each tool's arguments and at the stdio reader: clear answers, never a crash. */

import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeedApi } from '../../src/api/client.js';
import { apiSchemas } from '../../src/api/schemas.js';
import { silentLogger } from '../../src/log.js';
import { callTool, listTools } from '../../src/mcp-server.js';
import { StdioTransport } from '../../src/stdio/transport.js';
import { changeEvent, changesPage, model, modelsPage } from '../fixtures.js';

const {
  ChangesPage: ChangesPageSchema,
  ModelsPage: ModelsPageSchema,
  PriceHistory: PriceHistorySchema,
} = apiSchemas();

const api: FeedApi = {
  listChanges: async () => ChangesPageSchema.parse(changesPage([changeEvent()], 1)),
  listChangesCached: async () => ChangesPageSchema.parse(changesPage([changeEvent()], 1)),
  readChanges: async () => ({ page: ChangesPageSchema.parse(changesPage([changeEvent()], 1)), sent: [] }),
  listModels: async () => ModelsPageSchema.parse(modelsPage([model()])),
  getPriceHistory: async (id) =>
    PriceHistorySchema.parse({ id, currency: 'USD', unit: 'per 1M tokens', since: 0, points: [] }),
  rateLimit: undefined,
};
const deps = { api, log: silentLogger, version: 'test' };

/** Objects that use the tools' real argument names, with values of any shape. */
const nearMiss = fc.dictionary(
  fc.constantFrom(
    'since',
    'type',
    'model',
    'limit',
    'id',
    'vendor',
    'maxInputPrice',
    'minContext',
    '__proto__',
    'constructor',
  ),
  fc.oneof(fc.jsonValue(), fc.string({ maxLength: 5000 }), fc.double(), fc.integer()),
);

describe('fuzz: tool arguments', () => {
  for (const tool of listTools()) {
    it(`${tool.name} answers any arguments with a result or a clear error`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.jsonValue(), nearMiss, fc.constant(undefined)), async (args) => {
          const result = await callTool(deps, tool.name, args, new AbortController().signal);
          const text = (result.content[0] as { text: string }).text;
          expect(text.length).toBeGreaterThan(0);
          expect(text).not.toMatch(/\n\s+at /);
          if (result.isError) expect(text).toMatch(/^Invalid arguments for /);
          else expect(result.structuredContent).toBeDefined();
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('fuzz: the stdio reader', () => {
  it('answers every non-empty line with a message or a JSON-RPC error, and never throws', async () => {
    const line = fc.oneof(
      fc.string({ maxLength: 200 }).map((s) => s.replace(/\n/g, ' ')),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string()), method: fc.string() })
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 20 }),
        fc.integer({ min: 1, max: 64 }),
        async (lines, chunkSize) => {
          const input = new PassThrough();
          const output = new PassThrough();
          const transport = new StdioTransport(input, output, silentLogger);
          let delivered = 0;
          transport.onmessage = () => {
            delivered++;
          };
          await transport.start();
          const data = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          for (let i = 0; i < data.length; i += chunkSize) input.write(data.subarray(i, i + chunkSize));
          await new Promise((resolve) => setImmediate(resolve));
          const written = output.read()?.toString() ?? '';
          const answers = written
            .split('\n')
            .filter(Boolean)
            .map((l: string) => JSON.parse(l) as { jsonrpc: string; error: { code: number } });
          for (const answer of answers) {
            expect(answer.jsonrpc).toBe('2.0');
            expect([-32700, -32600]).toContain(answer.error.code);
          }
          // Lines that are blank once CR is dropped are skipped; each other line gets one outcome.
          const meaningful = lines.filter((l) => l.replace(/\r$/, '').trim() !== '').length;
          expect(delivered + answers.length).toBe(meaningful);
        },
      ),
      { numRuns: 300 },
    );
  });
});
