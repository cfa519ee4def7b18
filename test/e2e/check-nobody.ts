/**
 * The CLI run as user nobody over a tree of the test's (root reads every file whatever its mode, so
 * a permission test needs another user). The test's temp folder may be one nobody cannot enter
 * (CI's is 0700), so the tree is bind-mounted on a tmpfs over /srv (empty on Debian-based systems) in
 * a mount namespace of the run's own: nothing outside it changes, and it goes with the process.
 */

import { spawn } from 'node:child_process';
import { BIN, NODE, type Output } from './harness.js';

const NOBODY = 65534;
/** Where the tree is seen by the run. */
export const MOUNTED_TREE = '/srv/tree';

export function runAsNobody(args: string[], tree: string, env: Record<string, string>): Promise<Output> {
  const script = [
    'set -e',
    'mount -t tmpfs -o mode=755 tmpfs /srv',
    `mkdir ${MOUNTED_TREE}`,
    `mount --bind "$0" ${MOUNTED_TREE}`,
    `cd ${MOUNTED_TREE}`,
    `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups "$@"`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', script, tree, NODE, BIN, ...args],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}\n${stderr}`));
    }, 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
