/**
 * The stdio transport is watched through its activity, never patched: nothing in src/ replaces a
 * transport's `onmessage` or `send` (the SDK sets `onmessage` on the transports it is connected to,
 * from its own code).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/**
 * The one patch left, and why it is not the stdio transport's: a 2025 server recodes its own
 * "resource not found" answers on the SDK's per-server channel, over stdio and HTTP alike.
 */
const KNOWN = new Set(['resources/not-found.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });
}

/** `x.onmessage = …` or `x.send = …`, not `==`, `===` or `=>`. */
const REPLACES_HANDLER = /\.(onmessage|send)\s*=(?![=>])/;

describe('the transport seam', () => {
  it('no module in src/ replaces a transport’s onmessage or send', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file).split('\\').join('/'))
      .filter((file) => !KNOWN.has(file))
      .filter((file) => REPLACES_HANDLER.test(readFileSync(join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the check finds a replaced handler', () => {
    expect(REPLACES_HANDLER.test('transport.onmessage = (message) => {}')).toBe(true);
    expect(REPLACES_HANDLER.test('transport.send = (message) => send(message)')).toBe(true);
    expect(REPLACES_HANDLER.test("if (message.send === 'x') {}")).toBe(false);
  });
});
