/** The live changes' randomness: a seeded stream per publication, so that a run replays exactly. */

export type Random = () => number;

/** mulberry32, seeded from (seed, sequence): each publication draws from a stream of its own. */
export function randomStream(seed: number, sequence: number): Random {
  let state = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(sequence | 0, 0x85ebca77) ^ 0x2545f491) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  next();
  return next;
}

export function pick<T>(items: readonly T[], random: Random): T | undefined {
  return items[Math.floor(random() * items.length)];
}

/** `pick` among the items that pass `test`, without building the list: a backlog draws 10,000 times. */
export function pickWhere<T>(items: readonly T[], test: (item: T) => boolean, random: Random): T | undefined {
  let count = 0;
  for (const item of items) if (test(item)) count++;
  let wanted = Math.floor(random() * count);
  for (const item of items) {
    if (test(item) && wanted-- === 0) return item;
  }
  return undefined;
}
