/**
 * `model-feed://changes`: the most recent changes, newest first, with `latest`. The one resource
 * to subscribe to: a client re-reads it when told it was updated.
 */

import type { Resource } from '@modelcontextprotocol/server';
import type { ChangesPage, FeedApi } from '../api/client.js';

export const CHANGES_URI = 'model-feed://changes';

/** As many as `list_model_changes` gives by default: the same request, so the same cache and coalescing. */
export const RECENT_CHANGES = 20;

export const changesResource: Resource = {
  uri: CHANGES_URI,
  name: 'changes',
  title: 'Recent model changes',
  description: `The ${RECENT_CHANGES} latest changes to AI models, newest first. Subscribe to hear of new ones.`,
  mimeType: 'application/json',
};

/** Spends what `list_model_changes` with `limit: 20` spends: one feed request, never cached. */
export function readRecentChanges(api: FeedApi, signal: AbortSignal): Promise<ChangesPage> {
  return api.listChanges({ limit: RECENT_CHANGES }, signal);
}
