/**
 * One file read and matched as bytes (scan-file.ts): the same references, lines and columns as the
 * decoded text gives, whatever the bytes, valid UTF-8 or not.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/check/matcher.js';
import { locate } from '../../src/check/offsets.js';
import { scanFile } from '../../src/check/scan-file.js';
import { tempFolder } from '../support/temp.js';

const matcher = compileMatcher([
  { id: 'openai/gpt-4o', name: 'GPT-4o' },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini' },
]);

/** The references of a decoded text, placed, as check found them before it read bytes. */
function fromText(text: string) {
  const found = matcher.references(text);
  const spans = [
    ...found.map((r) => ({ ...r, suggestions: [] as string[] })),
    ...matcher.nearMisses(text, found).map((m) => ({ ...m, modelId: null })),
  ].sort((a, b) => a.start - b.start);
  const places = locate(
    text,
    spans.map((span) => span.start),
  );
  return spans.map((span, i) => ({
    ...places[i],
    text: text.slice(span.start, span.end),
    modelId: span.modelId,
    suggestions: span.suggestions,
  }));
}

describe('scanFile', () => {
  it('reads bytes that are not UTF-8 as their decoding does: each bad sequence one U+FFFD', () => {
    const folder = tempFolder('mf-check-scan-file-');
    const path = join(folder, 'latin1.py');
    const bytes = Buffer.concat([
      Buffer.from('# caf'),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from(' gpt-4o\n'),
      Buffer.from([0xf0, 0x9f, 0x98]), // a 4-byte character cut short
      Buffer.from('openai/gpt-4x '),
      Buffer.from([0xc3]),
      Buffer.from('GPT-4o mini\n'),
    ]);
    writeFileSync(path, bytes);
    const outcome = scanFile(path, matcher, 1024 * 1024);
    expect(outcome).toMatchObject({ kind: 'scanned', bytes: bytes.length, repeats: 0 });
    const references = outcome.kind === 'scanned' ? outcome.references : [];
    expect(references).toEqual(fromText(bytes.toString('utf8')));
    expect(references.map((r) => [r.line, r.column, r.text])).toEqual([
      [1, 8, 'gpt-4o'],
      [2, 2, 'openai/gpt-4x'],
      [2, 17, 'GPT-4o mini'],
    ]);
  });

  it('says why a file is not scanned: too large, binary, or not a file', () => {
    const folder = tempFolder('mf-check-scan-file-');
    writeFileSync(join(folder, 'big.txt'), 'gpt-4o '.repeat(200));
    writeFileSync(join(folder, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]));
    expect(scanFile(join(folder, 'big.txt'), matcher, 1000)).toEqual({ kind: 'tooLarge' });
    expect(scanFile(join(folder, 'image.png'), matcher, 1000)).toEqual({ kind: 'binary' });
    expect(scanFile(folder, matcher, 1000)).toEqual({ kind: 'other' });
    expect(scanFile(join(folder, 'missing'), matcher, 1000)).toEqual({ kind: 'other' });
  });
});
