/**
 * Edit distance (Levenshtein: insertions, deletions and substitutions of UTF-16 code units), for
 * "did you mean": a mistyped tool or flag, an unlisted model id, a near miss in `check`.
 */

/** Work done by distance computations, in table cells: what a search's budget is counted in. */
export interface Work {
  cells: number;
}

/**
 * Two table rows, reused: a search compares thousands of pairs, and fresh rows for each would cost
 * more than the comparing. Safe to share: a computation never yields before it is done.
 */
let scratchRows: [Int32Array, Int32Array] = [new Int32Array(256), new Int32Array(256)];

function rows(length: number): [Int32Array, Int32Array] {
  if (scratchRows[0].length < length) scratchRows = [new Int32Array(length), new Int32Array(length)];
  return [scratchRows[0], scratchRows[1]];
}

/**
 * Edit distance when it is at most `limit`, else `limit + 1`. Only the diagonal band |i − j| <=
 * limit can hold such a distance, and once a whole row exceeds it no later row can come back
 * under, so the table stops there: a distant pair costs a few rows, not the whole square. `work`,
 * when given, counts the cells computed.
 */
export function boundedEditDistance(a: string, b: string, limit: number, work?: Work): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  if (a.length === 0 || b.length === 0) return Math.max(a.length, b.length);
  let [previous, current] = rows(b.length + 1);
  previous.fill(over, 0, b.length + 1);
  for (let j = 0; j <= Math.min(b.length, limit); j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    // Cells left and right of the band stay "too far", so the next row never reads a stale value.
    current[from - 1] = from === 1 && i <= limit ? i : over;
    if (to < b.length) current[to + 1] = over;
    const code = a.charCodeAt(i - 1);
    let rowMin = current[from - 1]!;
    for (let j = from; j <= to; j++) {
      const cell = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (code === b.charCodeAt(j - 1) ? 0 : 1),
      );
      current[j] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    if (work) work.cells += to - from + 1;
    if (rowMin > limit) return over;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length]!, over);
}

/** The edit distance of `a` and `b`, exactly: the whole table, for short names. */
export function editDistance(a: string, b: string): number {
  return boundedEditDistance(a, b, Math.max(a.length, b.length));
}
