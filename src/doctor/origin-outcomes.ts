/**
 * What doctor says about the public origins of `--source public`: each origin's address and route,
 * the one GET of its resource, and what to do. Pure.
 *
 * The catalog is the spine: without it no snapshot is taken, so its failure fails doctor. Any other
 * origin failing is a warning: the feed still works, without what that origin adds. An origin set
 * to `off` is reported as off, which is neither.
 */

import { describeError, unavailableReason } from '../describe-error.js';
import type { ProxyChoice } from '../net/proxy.js';
import { type Check, check, TITLES } from './check.js';
import type { Destination } from './network-outcomes.js';

/** One public origin as doctor checks it. */
export interface OriginToCheck {
  /** As the poll records and `dataSource` name it: `openrouter`, `models.dev`, … */
  name: string;
  /** For people, as a check's title begins: "Catalog". */
  label: string;
  /** The env var that holds its address. */
  setting: string;
  /** Its address without a trailing slash; undefined when set to `off`. */
  url: string | undefined;
  /** What the feed loses without it: undefined for the spine, whose failure fails doctor. */
  adds: string | undefined;
  /** The resource doctor asks for, relative to the address. */
  path: string;
}

/** What one GET of an origin's resource brought back. */
export interface ResourceAnswer {
  status: number;
  /** Characters of the body. */
  bytes: number;
  body: unknown;
}

/** What the answer holds, in a few words ("412 models"), or why it cannot be used. */
export type AnswerReading = { ok: true; summary: string } | { ok: false; reason: string };

export function destinationOf(origin: OriginToCheck): Destination {
  return { setting: origin.setting, flag: undefined, name: origin.label, path: origin.path };
}

/** A check about `origin`: named after it, carrying its name. */
export function forOrigin(origin: OriginToCheck, found: Check): Check {
  const title = found.id === 'origin' ? origin.label : `${origin.label} ${TITLES[found.id]}`;
  const { id, title: _plain, ...rest } = found;
  return { id, origin: origin.name, title, ...rest };
}

/** The origin's address, where it came from, and the route to it (proxy or direct, per NO_PROXY). */
export function checkOriginAddress(
  origin: OriginToCheck,
  env: Readonly<Record<string, string | undefined>>,
  choice: ProxyChoice | undefined,
): Check {
  const from = env[origin.setting]?.trim() ? `from ${origin.setting}` : '(default)';
  if (origin.url === undefined || choice === undefined) {
    const without =
      origin.adds === undefined
        ? 'no snapshot is taken: answers come from what was recorded before, if anything'
        : `the feed goes on without ${origin.adds}`;
    return forOrigin(
      origin,
      check('origin', { status: 'off', detail: `off (${origin.setting}=off): not asked; ${without}` }),
    );
  }
  return forOrigin(
    origin,
    check('origin', { status: 'pass', detail: `${origin.url} ${from}; ${choice.reason}` }),
  );
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function getPassed(
  origin: OriginToCheck,
  answer: ResourceAnswer,
  reading: AnswerReading,
  ms: number,
): Check {
  const head = `GET ${origin.path}: HTTP ${answer.status}, ${size(answer.bytes)}`;
  if (reading.ok) {
    return forOrigin(origin, check('get', { status: 'pass', detail: `${head}, ${reading.summary}`, ms }));
  }
  return forOrigin(
    origin,
    check('get', {
      status: 'fail',
      detail: `${head}, but ${reading.reason}`,
      fix: `Check that ${origin.setting} points at ${origin.label}'s own address (or a mirror that serves the same answer).`,
      ms,
    }),
  );
}

export function getFailed(origin: OriginToCheck, error: unknown, ms: number): Check {
  const host = origin.url === undefined ? origin.label : new URL(origin.url).host;
  return forOrigin(
    origin,
    check('get', {
      status: 'fail',
      detail: `GET ${origin.path}: ${unavailableReason(error, host)}`,
      fix: describeError(error, 'shell'),
      ms,
    }),
  );
}

/**
 * An origin other than the catalog, as its failure counts: a warning that says what the feed goes
 * without, and no lines for the steps it stopped (a step not run would otherwise fail doctor).
 */
export function asOptional(origin: OriginToCheck, checks: readonly Check[]): Check[] {
  if (origin.adds === undefined) return [...checks];
  const without = `The feed still works without ${origin.label}, only without ${origin.adds}; set ${origin.setting}=off to stop asking it.`;
  return checks
    .filter((c) => c.status !== 'skip')
    .map((c) =>
      c.status === 'fail'
        ? { ...c, status: 'warn', fix: c.fix === undefined ? without : `${c.fix} ${without}` }
        : c,
    );
}
