/**
 * What `--print` shows: a unified-style diff of one change. Setup's edits touch one region (or
 * two, for VS Code), so the changed lines are found by trimming the common head and tail; no
 * general diff algorithm is needed.
 */

const CONTEXT = 3;

export function lineDiff(before: string, after: string, beforeName: string, afterName: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const from = Math.max(0, head - CONTEXT);
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const after3 = Math.min(tail, CONTEXT);
  const lines = [
    `--- ${beforeName}`,
    `+++ ${afterName}`,
    `@@ -${from + 1},${aEnd - from + after3} +${from + 1},${bEnd - from + after3} @@`,
    ...a.slice(from, head).map((l) => ` ${l}`),
    ...a.slice(head, aEnd).map((l) => `-${l}`),
    ...b.slice(head, bEnd).map((l) => `+${l}`),
    ...a.slice(aEnd, aEnd + after3).map((l) => ` ${l}`),
  ];
  return `${lines.join('\n')}\n`;
}
