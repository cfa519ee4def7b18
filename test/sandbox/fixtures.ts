import type { ChangeEvent, EventType, VerificationStatus } from '../../src/sandbox/types.js';

export interface EventSpec {
  id: string;
  detectedAtSec: number;
  eventType?: EventType;
  slug?: string;
  status?: VerificationStatus;
}

/** A ChangeEvent with filler text: the feed looks only at id, detectedAt, type, vendor and status. */
export function makeEvent(spec: EventSpec): ChangeEvent {
  const status = spec.status ?? 'official';
  const slug = spec.slug ?? 'acme';
  return {
    id: spec.id,
    eventType: spec.eventType ?? 'new_model',
    title: `event ${spec.id}`,
    summary: null,
    beforeValue: null,
    afterValue: null,
    sourceUrl: null,
    sourceName: 'test',
    verificationStatus: status,
    official: status === 'official',
    detectedAt: new Date(spec.detectedAtSec * 1000).toISOString(),
    publishedAt: null,
    model: { slug, name: 'Model', company: 'Company', accentColor: '#000000' },
  };
}
