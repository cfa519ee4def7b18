/**
 * The CLI run as user nobody (root reads every file whatever its mode, so a permission test needs
 * another user). CI's temp folders are 0700, so nobody could reach neither the checkout (the CLI is
 * its bin/ and dist/ alone), nor the Node binary CI installed there, nor a folder of the test's. So
 * each is bind-mounted on a tmpfs
 * over /srv (empty on Debian-based systems) in a mount namespace of the run's own: nothing outside
 * it changes, and it goes with the process. Needs root, as CI runs.
 */

import { basename, dirname } from 'node:path';
import { BIN, NODE, type Output, runCommand } from './harness.js';

const NOBODY = 65534;
/** Where the test's folder is seen by the run, and its working folder: give paths relative to it. */
export const MOUNTED_TREE = '/srv/tree';
const MOUNTED_PACKAGE = '/srv/package';
const MOUNTED_NODE = '/srv/node';

/**
 * Runs `model-feed-mcp <args>` as nobody, in `tree` (bind-mounted at MOUNTED_TREE) when given.
 * `tree` itself must let nobody in (its mode is the test's to set).
 */
export function runAsNobody(args: string[], env: Record<string, string>, tree?: string): Promise<Output> {
  if (process.getuid?.() !== 0) {
    return Promise.reject(new Error('this test runs the CLI as nobody: run it as root (CI does)'));
  }
  const packageRoot = dirname(dirname(BIN));
  const script = [
    'set -e',
    'mount -t tmpfs -o mode=755 tmpfs /srv',
    // The package's own folders, not its root: a fresh clone's root may be a 0700 temp folder itself.
    `mkdir -p ${MOUNTED_PACKAGE}/bin ${MOUNTED_PACKAGE}/dist ${MOUNTED_NODE} ${MOUNTED_TREE}`,
    `mount --bind "$0/bin" ${MOUNTED_PACKAGE}/bin`,
    `mount --bind "$0/dist" ${MOUNTED_PACKAGE}/dist`,
    `mount --bind "$1" ${MOUNTED_NODE}`,
    `if [ -n "$2" ]; then mount --bind "$2" ${MOUNTED_TREE}; fi`,
    `cd ${MOUNTED_TREE}`,
    'shift 3',
    `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups "$@"`,
  ].join('\n');
  const node = `${MOUNTED_NODE}/${basename(NODE)}`;
  const bin = `${MOUNTED_PACKAGE}/bin/${basename(BIN)}`;
  return runCommand(
    'unshare',
    [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      script,
      packageRoot,
      dirname(NODE),
      tree ?? '',
      node,
      bin,
      ...args,
    ],
    // TMPDIR: nowhere nobody can write, so no code cache of nobody's is left in a shared folder.
    { ...env, TMPDIR: '/nonexistent-mf' },
    { timeoutMs: 30_000 },
  );
}
