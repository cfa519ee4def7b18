/**
 * Temp folders for tests: each is removed, with everything in it, once its test file is done. CI
 * runs the suite in a temp folder of its own and fails when anything is left there (.ci/run).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new folder in the temp folder, named `<prefix>XXXXXX`, removed after this test file. */
export function tempFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  made.push(folder);
  return folder;
}
