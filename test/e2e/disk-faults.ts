/**
 * Real file-system faults for the end-to-end tests: small tmpfs mounts (full, read-only); a run as
 * user `nobody` is as-nobody.ts's. They need root, as CI runs; elsewhere the test fails saying so
 * rather than pass without trying.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export function needRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new Error('this test makes tmpfs mounts and runs as nobody: run it as root (CI does)');
  }
}

const mounted: string[] = [];
// After each test, so before tempFolder's clean-up after the file: a mount point cannot be removed
// while mounted.
afterEach(() => {
  for (const point of mounted.splice(0).reverse()) execFileSync('umount', ['-l', point]);
});

/** A tmpfs of `size` at `point` (made if missing), unmounted after the test. */
export function tmpfs(point: string, { size = '64k', readOnly = false } = {}): string {
  needRoot();
  mkdirSync(point, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${readOnly ? ',ro' : ''}`, 'tmpfs', point]);
  mounted.push(point);
  return point;
}

/** A tmpfs at `point` filled to its last byte. */
export function fullTmpfs(point: string): string {
  return fullTmpfsIn(tmpfs(point));
}

/** The tmpfs mounted at `point` filled to its last byte, by a file named `filler`. */
export function fullTmpfsIn(point: string): string {
  const filler = join(point, 'filler');
  // Whole blocks first, then byte by byte until the disk says no.
  for (const size of [4096, 1]) {
    for (;;) {
      try {
        writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
      } catch {
        break;
      }
    }
  }
  return point;
}
