/**
 * The Public record check: where this machine keeps what it recorded of the public origins, when
 * the newest snapshot was taken, and how many polls it holds. Read only: doctor never fetches to
 * make a record. Pure.
 */

import { ENV } from '../config.js';
import { describeError } from '../describe-error.js';
import type { StoreHead } from '../public/store/store.js';
import { echoPath } from '../text/redact.js';
import { type Check, check } from './check.js';

export type RecordFacts =
  | {
      folder: string;
      head: StoreHead<unknown> | null;
      /** Why the head could not be read, when the store said so (it then reads as none). */
      unreadable: string | undefined;
    }
  | { folder: string; error: unknown };

function iso(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** "3 h 5 min", "2 days 4 h", "40 s": how old, to a person. */
export function ageInWords(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} days${hours % 24 ? ` ${hours % 24} h` : ''}`;
}

/** `catalogOff`: the catalog is set `off`, so nothing new is recorded and answers come only from here. */
export function checkRecord(facts: RecordFacts, nowS: number, refreshS: number, catalogOff = false): Check {
  const folder = echoPath(facts.folder);
  if ('error' in facts) {
    return check('record', {
      status: 'fail',
      detail: `${folder}: cannot be read`,
      fix: describeError(facts.error, 'shell'),
    });
  }
  if (facts.head === null && catalogOff) {
    return check('record', {
      status: 'fail',
      detail: `${folder}: nothing recorded, and the catalog is off: no answer can be given`,
      fix: `Turn the catalog on (unset ${ENV.openrouterUrl}, or point it at a mirror) for one read at least.`,
    });
  }
  if (facts.head === null) {
    if (facts.unreadable !== undefined) {
      return check('record', {
        status: 'warn',
        detail: `${folder}: unreadable (${facts.unreadable})`,
        fix: 'Nothing to do: the next read fetches the origins and starts the record over; the events recorded so far are not read again.',
      });
    }
    return check('record', {
      status: 'pass',
      detail: `${folder}: nothing recorded yet; the first read fetches the origins and records a snapshot`,
    });
  }
  const { head } = facts;
  const age = nowS - head.takenAt;
  const freshness = catalogOff
    ? 'the catalog is off: answers come from it as it is'
    : age < refreshS
      ? 'fresh'
      : `older than the refresh age of ${refreshS} s: the next read fetches anew`;
  const origins = Object.entries(head.lastPoll.origins)
    .map(([name, status]) => `${name} ${status}`)
    .join(', ');
  const polls = `${head.polls} poll${head.polls === 1 ? '' : 's'} recorded since ${iso(head.recordingSince)}`;
  return check('record', {
    status: 'pass',
    detail: `${folder}: newest snapshot ${iso(head.takenAt)} (${ageInWords(age)} ago, ${freshness}); ${polls}; last poll: ${origins || 'no origin named'}`,
  });
}
