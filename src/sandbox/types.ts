/** The service's resources (spec/service.md), as the sandbox serves them. */

import type { Attention } from '../service-rules/attention.js';

export const EVENT_TYPES = [
  'new_model',
  'price_change',
  'api_change',
  'open_source_surge',
  'deprecation',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const VERIFICATION_STATUSES = ['official', 'pending', 'rejected'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export interface ChangeEvent {
  id: string;
  eventType: EventType;
  title: string;
  summary: string | null;
  beforeValue: string | null;
  afterValue: string | null;
  sourceUrl: string | null;
  sourceName: string;
  verificationStatus: VerificationStatus;
  /** true exactly when verificationStatus is `official`. */
  official: boolean;
  detectedAt: string;
  publishedAt: string | null;
  model: { slug: string; name: string; company: string; accentColor: string };
}

export interface Model {
  id: string;
  name: string;
  displayName: string;
  vendor: string;
  type: 'commercial' | 'open_source';
  pricing: { inputPerMillion: number | null; outputPerMillion: number | null };
  contextLength: number | null;
  listedAt: number | null;
  huggingfaceId: string | null;
  attention: Attention;
  url: string;
}

export interface PricePoint {
  inputPrice: number | null;
  outputPrice: number | null;
  observedAt: number;
}

export interface PriceHistory {
  id: string;
  currency: 'USD';
  unit: 'per 1M tokens';
  since: number | null;
  points: PricePoint[];
}
