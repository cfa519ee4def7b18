/** How doctor's findings are printed (text or JSON) and what they add up to. Pure. */

import type { Check, CheckStatus } from './check.js';

const SYMBOLS: Record<CheckStatus, string> = { pass: '✔', warn: '!', fail: '✖', skip: '-', off: '○' };

/**
 * Warnings do not fail, nor does what was turned off on purpose; a check that did not run is not a
 * pass.
 */
export function allPassed(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status === 'pass' || c.status === 'warn' || c.status === 'off');
}

export function exitCodeFor(checks: readonly Check[]): number {
  return allPassed(checks) ? 0 : 1;
}

function count(checks: readonly Check[], status: CheckStatus): number {
  return checks.filter((c) => c.status === status).length;
}

function summary(checks: readonly Check[]): string {
  const warnings = count(checks, 'warn');
  const off = count(checks, 'off');
  const warned = `${warnings ? `, ${warnings} with a warning` : ''}${off ? `, ${off} off` : ''}`;
  if (allPassed(checks)) return `All ${checks.length - off} checks passed${warned}.`;
  return `Not ready: ${count(checks, 'fail')} failed, ${count(checks, 'skip')} skipped, ${count(checks, 'pass') + warnings} passed${warned}. Fix the first ✖ above, then run this command again.`;
}

/** One aligned line per check, what to do under a failure or warning, then the summary. */
export function renderText(checks: readonly Check[]): string {
  const width = Math.max(0, ...checks.map((c) => c.title.length));
  const indent = ' '.repeat(width + 4);
  const lines = checks.flatMap((c) => {
    const took = c.ms === undefined ? '' : ` (${c.ms} ms)`;
    const line = `${SYMBOLS[c.status]} ${c.title.padEnd(width)}  ${c.detail}${took}`;
    const showFix = c.fix !== undefined && (c.status === 'fail' || c.status === 'warn');
    return showFix ? [line, `${indent}→ ${c.fix}`] : [line];
  });
  return `${[...lines, summary(checks)].join('\n')}\n`;
}

export function renderJson(checks: readonly Check[]): string {
  return `${JSON.stringify({ ok: allPassed(checks), checks }, null, 2)}\n`;
}
