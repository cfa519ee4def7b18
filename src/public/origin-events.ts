/**
 * Change events in the service's shape from the origins beside the aggregator's catalog: uploads
 * to the open model repository (`open_source_surge`) and vendor-cited deprecations. Ids are
 * name-based UUIDs in a name space per origin, of what makes the event: an upload's base model, a
 * deprecation's model and announcement. Deriving again from the same answers gives the same ids.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { uuidV5 } from '../service-rules/content-id.js';
import { isoSeconds } from './catalog-events.js';
import type { DeprecationRecord } from './vendor-deprecations.js';

/** Name spaces of the event ids (random UUIDs, fixed once). */
const UPLOAD_NAMESPACE = 'b4d7f0a2-6c1e-4e83-9a5d-2f7c8e91b3a6';
const DEPRECATION_NAMESPACE = 'e2a9c5d1-8f34-4b70-a6e2-5d1b9c07f48e';

export const HUGGINGFACE_SOURCE_NAME = 'Hugging Face model repository (GET /api/models)';
export const DEPRECATIONS_SOURCE_NAME = "modeldeprecations.dev, citing the vendor's own page";
/** Where a deprecation record is shown when it cites no vendor page of its own. */
const DEPRECATIONS_SITE = 'https://modeldeprecations.dev';
const HUGGINGFACE_SITE = 'https://huggingface.co';

/** Who the event is about, in the service's terms. */
export interface EventSubject {
  /** The catalog id when one matched; null otherwise. */
  readonly catalogId: string | null;
  /** The vendor namespace (`model.slug`). */
  readonly slug: string;
  readonly name: string | null;
}

export interface UploadFacts {
  readonly subject: EventSubject;
  /** The collapsed base model (huggingface.ts `uploadKey`): part of the id. */
  readonly baseKey: string;
  /** The repository shown: the base's own upload when listed, else the earliest. */
  readonly repoId: string;
  readonly org: string;
  /** Whether the organisation is the vendor's own: then the upload is `official`. */
  readonly vendorOrg: boolean;
  /** The other uploads of the same base seen in the same run. */
  readonly siblings: readonly string[];
  readonly createdAt: number | null;
  readonly detectedAt: number;
}

export function uploadEvent(facts: UploadFacts): ChangeEvent {
  const { subject } = facts;
  const siblings =
    facts.siblings.length === 0
      ? ''
      : ` Also uploaded with it: ${facts.siblings.slice(0, 5).join(', ')}${facts.siblings.length > 5 ? ', …' : ''}.`;
  const owner = facts.vendorOrg ? "the vendor's own organisation" : 'an organisation the catalog links to';
  const linked = subject.catalogId === null ? '' : ` The aggregator lists it as ${subject.catalogId}.`;
  return {
    id: uuidV5(JSON.stringify(['open_source_surge', facts.baseKey]), UPLOAD_NAMESPACE),
    eventType: 'open_source_surge',
    title: `${facts.repoId} published on Hugging Face`,
    summary: `Open weights uploaded by ${facts.org}, ${owner}.${linked}${siblings}`,
    beforeValue: null,
    afterValue: facts.repoId,
    sourceUrl: `${HUGGINGFACE_SITE}/${facts.repoId}`,
    sourceName: HUGGINGFACE_SOURCE_NAME,
    ...verification(facts.vendorOrg),
    detectedAt: isoSeconds(facts.detectedAt),
    publishedAt: facts.createdAt === null ? null : isoSeconds(facts.createdAt),
    model: { slug: subject.slug, name: subject.name, company: null, accentColor: null },
    catalogId: subject.catalogId,
  };
}

export interface DeprecationFacts {
  readonly subject: EventSubject;
  readonly record: DeprecationRecord;
  /** The record's announcement as the last run saw it; null when new. */
  readonly before: string | null;
  readonly detectedAt: number;
}

export function deprecationEvent(facts: DeprecationFacts): ChangeEvent {
  const { subject, record } = facts;
  const announcement = describeDeprecation(record);
  const about = subject.catalogId ?? `${record.provider}/${record.model}`;
  const label = subject.name ?? record.name ?? record.model;
  return {
    id: uuidV5(JSON.stringify(['deprecation', about, announcement]), DEPRECATION_NAMESPACE),
    eventType: 'deprecation',
    title: deprecationTitle(label, record),
    summary: `${about}: ${announcement} (the vendor's id: ${record.model}).`,
    beforeValue: facts.before,
    afterValue: announcement,
    ...deprecationSource(record),
    detectedAt: isoSeconds(facts.detectedAt),
    publishedAt: record.deprecatedOn === null ? null : `${record.deprecatedOn}T00:00:00Z`,
    model: { slug: subject.slug, name: subject.name ?? record.name, company: null, accentColor: null },
    catalogId: subject.catalogId,
  };
}

/**
 * A pending deprecation the aggregator's catalog showed, confirmed by the vendor-cited record: the
 * same event (its id, its observed change), now `official` and citing the vendor's page.
 */
export function confirmedDeprecation(pending: ChangeEvent, record: DeprecationRecord): ChangeEvent {
  return {
    ...pending,
    summary: `${pending.summary ?? pending.title} The vendor's own page confirms: ${describeDeprecation(record)}.`,
    ...deprecationSource(record),
    publishedAt: record.deprecatedOn === null ? pending.publishedAt : `${record.deprecatedOn}T00:00:00Z`,
  };
}

/** `deprecated 2025-08-13; shutdown 2025-10-28; replacement anthropic/claude-sonnet-4-6`. */
export function describeDeprecation(record: DeprecationRecord): string {
  const parts: string[] = [];
  if (record.deprecatedOn !== null) parts.push(`deprecated ${record.deprecatedOn}`);
  if (record.shutdownOn !== null) parts.push(`shutdown ${record.shutdownOn}`);
  else if (record.earliestShutdownOn !== null) parts.push(`shutdown not before ${record.earliestShutdownOn}`);
  if (parts.length === 0) parts.push(record.status === 'retired' ? 'retired' : 'deprecated, no date given');
  if (record.replacement !== null) parts.push(`replacement ${record.replacement}`);
  return parts.join('; ');
}

function deprecationTitle(label: string, record: DeprecationRecord): string {
  if (record.shutdownOn !== null) return `${label} shuts down on ${record.shutdownOn}`;
  if (record.earliestShutdownOn !== null)
    return `${label} deprecated, shutdown not before ${record.earliestShutdownOn}`;
  return `${label} deprecated by its vendor`;
}

/** The vendor's page makes it official; a record citing none stays pending, shown on the list. */
function deprecationSource(record: DeprecationRecord) {
  if (record.sourceUrl !== null) {
    return { sourceUrl: record.sourceUrl, sourceName: DEPRECATIONS_SOURCE_NAME, ...verification(true) };
  }
  return {
    sourceUrl: `${DEPRECATIONS_SITE}/${encodeURIComponent(record.provider)}/${encodeURIComponent(record.model)}`,
    sourceName: DEPRECATIONS_SOURCE_NAME,
    ...verification(false),
  };
}

function verification(official: boolean) {
  return official
    ? { verificationStatus: 'official', official: true }
    : { verificationStatus: 'pending', official: false };
}
