/**
 * Node's version against package.json's `engines.node`, compared number by number ("20.9" is
 * older than "20.18", which a string comparison gets wrong). Understands what `engines` ranges
 * are made of in practice: comparators (`>=20.18.1`, `<25`, a bare version), joined by spaces
 * (all must hold) and `||` (either side may hold).
 */

import { type Check, check } from './check.js';

type Version = [number, number, number];

/** "v20.18.1", "20.18", "24.0.0-pre" → [20, 18, 1] …; undefined when not a version. */
export function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

const HOLDS: Record<string, (order: number) => boolean> = {
  '>=': (order) => order >= 0,
  '>': (order) => order > 0,
  '<=': (order) => order <= 0,
  '<': (order) => order < 0,
  '=': (order) => order === 0,
};

/** True or false; undefined when the range holds something this reader does not understand. */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  const have = parseVersion(version);
  if (!have) return undefined;
  const alternatives = range.split('||').map((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .map((comparator) => {
        const match = /^(>=|<=|>|<|=)?\s*(.+)$/.exec(comparator);
        const want = match?.[2] === undefined ? undefined : parseVersion(match[2]);
        return want && HOLDS[match?.[1] ?? '=']?.(compareVersions(have, want));
      }),
  );
  if (alternatives.some((results) => results.includes(undefined))) return undefined;
  return alternatives.some((results) => results.every(Boolean));
}

export function checkNodeVersion(version: string, engines: string): Check {
  const satisfied = satisfiesRange(version, engines);
  if (satisfied === undefined) {
    return check('node', {
      status: 'warn',
      detail: `${version}; cannot read the required range "${engines}"`,
      fix: 'Please report this: package.json engines.node should be a plain range such as >=20.18.1.',
    });
  }
  return satisfied
    ? check('node', { status: 'pass', detail: `${version} satisfies ${engines}` })
    : check('node', {
        status: 'fail',
        detail: `${version} does not satisfy ${engines}`,
        fix: `Install a Node.js version matching ${engines} (a current LTS from https://nodejs.org), then restart the MCP client.`,
      });
}
