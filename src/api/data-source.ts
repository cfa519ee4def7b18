/**
 * Where the answers come from when it is not the service: the public origins recorded on this
 * machine, or the built-in sample data. Every tool result of those sources carries it in
 * `structuredContent`, because some clients hand the model nothing else (not the text, not `_meta`).
 */
export interface DataSource {
  readonly kind: 'public' | 'sample';
  /** Each origin drawn on: its name, its address (null when off or built in), how its newest fetch went. */
  readonly origins: readonly {
    readonly name: string;
    readonly url: string | null;
    readonly status: string;
  }[];
  /** ISO time of the newest snapshot (for the sample data, the day it describes); null before the first. */
  readonly snapshotAt: string | null;
  /** When this machine began to record (ISO); null before the first snapshot or for the sample data. */
  readonly recordingSince: string | null;
  /** Set when the newest snapshot is older than the refresh age and could not be renewed. */
  readonly stale?: { readonly ageSeconds: number; readonly reason: string };
}
