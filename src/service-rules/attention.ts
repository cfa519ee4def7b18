/** Attention as the service defines it: how much notice a model gets now, not its quality. */
export interface Attention {
  rank: number;
  score: number;
  newsCount: number;
  opinions: number;
}

/** What attention needs to know about a catalog model. */
export interface AttentionSubject {
  id: string;
  vendorSlug: string;
  listedAt: number | null;
  /**
   * People's opinions counted elsewhere (likes of the model's open repository), when known: they
   * replace the count of third-party events, weighted by their order of magnitude, since they run
   * into the thousands where events run into the units.
   */
  opinions?: number | undefined;
}

/** What attention needs to know about a change event. */
export interface AttentionEvent {
  catalogId: string;
  vendorSlug: string;
  detectedAtSec: number;
  official: boolean;
}

const DAY_S = 86_400;
// A model's newness fades over about half a year, news over about a quarter.
const NOVELTY_HALF_LIFE_DAYS = 180;
const NEWS_HALF_LIFE_DAYS = 90;

const ATTENTION_WEIGHTS = { novelty: 50, news: 20, opinions: 10, vendorActivity: 5 } as const;

/** 1 for something that happened at (or after) the reference time, halving every `halfLifeDays` before it. */
function recency(atSec: number, referenceSec: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, referenceSec - atSec) / DAY_S;
  return 0.5 ** (ageDays / halfLifeDays);
}

function sumOfRecency(events: readonly AttentionEvent[], referenceSec: number): number {
  return events.reduce(
    (sum, event) => sum + recency(event.detectedAtSec, referenceSec, NEWS_HALF_LIFE_DAYS),
    0,
  );
}

/**
 * Attention of every subject, as of `referenceSec` (a fixed date of the data set, never the wall
 * clock, so ranks are the same on every run):
 *
 *   score = 50·novelty + 20·news + 10·opinions + 5·vendorActivity, rounded to 2 decimals
 *
 * novelty: recency of listedAt (half-life 180 days; 0 when unknown); news: sum of the recency of the
 * events about the model (half-life 90 days); opinions: events about the model that are not
 * `official` (third-party reports, not the vendor's word); vendorActivity: sum of the recency of all
 * events about the vendor. Rank 1 is the highest score; equal scores are ranked by id.
 */
export function computeAttention(
  subjects: readonly AttentionSubject[],
  events: readonly AttentionEvent[],
  referenceSec: number,
): Map<string, Attention> {
  // Grouped once: a filter of every event per model costs models × events on every catalog build.
  const byModel = groupBy(events, (event) => event.catalogId);
  const byVendor = groupBy(events, (event) => event.vendorSlug);
  const scored = subjects.map((subject) => {
    const news = byModel.get(subject.id) ?? [];
    const vendorEvents = byVendor.get(subject.vendorSlug) ?? [];
    const novelty =
      subject.listedAt === null ? 0 : recency(subject.listedAt, referenceSec, NOVELTY_HALF_LIFE_DAYS);
    const opinions = subject.opinions ?? news.filter((event) => !event.official).length;
    const opinionsTerm = subject.opinions === undefined ? opinions : Math.log10(1 + opinions);
    const raw =
      ATTENTION_WEIGHTS.novelty * novelty +
      ATTENTION_WEIGHTS.news * sumOfRecency(news, referenceSec) +
      ATTENTION_WEIGHTS.opinions * opinionsTerm +
      ATTENTION_WEIGHTS.vendorActivity * sumOfRecency(vendorEvents, referenceSec);
    // Rank by the rounded score, so a client sorting by (score desc, id) agrees with rank.
    return { id: subject.id, score: Math.round(raw * 100) / 100, newsCount: news.length, opinions };
  });
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return new Map(scored.map(({ id, ...rest }, index) => [id, { rank: index + 1, ...rest }]));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}
