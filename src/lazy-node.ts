/**
 * Node's own modules that start-up does not need, loaded where they are first used. A bundled
 * `import` of them runs at load: crypto, child_process and fs/promises together cost about 10 ms
 * of every start (measured, Node 20) for a server that answers `initialize` without any of them.
 */

export const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const nodeFs = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');
export const nodeChildProcess = (): typeof import('node:child_process') =>
  process.getBuiltinModule('node:child_process');
