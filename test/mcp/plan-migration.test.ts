/**
 * plan_migration against a service whose catalog names a vendor by its company name ("Quillon")
 * and whose events name a model by display name as often as by name: a real MCP client in memory,
 * the REST client against msw. The feed's `model` filter matches the vendor slug exactly, as a
 * strict service would.
 */

import type { GetPromptResult } from '@modelcontextprotocol/client';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  changeEvent,
  changesPage,
  model,
  modelsPage,
  recordRequests,
  TEST_BASE,
  testApiClient,
} from '../fixtures.js';
import { connect } from './support.js';

const quillon = (overrides: Record<string, unknown>) =>
  model({ vendor: 'Quillon', huggingfaceId: null, contextLength: 32000, ...overrides });

const CATALOG = [
  quillon({
    id: 'quillon/quill-mini-2',
    name: 'quill-mini-2',
    displayName: 'Quill Mini 2',
    huggingfaceId: 'Quillon/Quill-Mini-2-Instruct',
  }),
  quillon({ id: 'quillon/quill-3', name: 'quill-3', displayName: 'Quill 3' }),
  model(),
];

let n = 0;
const deprecation = (name: string | null, text: Record<string, unknown> = {}) => {
  n += 1;
  return changeEvent({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    eventType: 'deprecation',
    title: `${name ?? 'A Quillon model'} retired`,
    summary: null,
    beforeValue: null,
    afterValue: null,
    sourceUrl: 'https://quillon.example/changelog',
    model: { slug: 'quillon', name, company: 'Quillon' },
    ...text,
  });
};

const EVENTS = {
  byDisplayName: deprecation('Quill Mini 2'),
  byName: deprecation('quill-mini-2'),
  byNameOtherCase: deprecation('QUILL MINI 2'),
  // Named after the replacement: about Quill 3, though its text names Quill Mini 2's id.
  aboutTheReplacement: deprecation('Quill 3', {
    title: 'Quill 3 takes over from quillon/quill-mini-2',
  }),
  // No catalog model by its name: the first id in the text decides, not the replacement after it.
  withReplacement: deprecation('Quill legacy line', {
    title: 'Quillon retires quillon/quill-mini-2',
    summary: 'Move to quillon/quill-3 before 2026-09-01.',
  }),
  byHuggingFaceId: deprecation(null, {
    title: 'Weights withdrawn',
    afterValue: 'https://huggingface.co/Quillon/Quill-Mini-2-Instruct removed',
  }),
  aboutQuill3: deprecation('Quill 3'),
  // Its free variant retired, named in the title only: no reason to move off the model itself.
  aboutItsFreeVariant: deprecation('Quill Mini 2', {
    title: 'Quill Mini 2 free variant (quillon/quill-mini-2:free) retired',
  }),
};
const ALL = Object.values(EVENTS);

const server = setupServer(
  http.get(`${TEST_BASE}/api/v1/models`, () => HttpResponse.json(modelsPage(CATALOG))),
  http.get(`${TEST_BASE}/api/v1/models/:slug/history`, ({ params }) =>
    HttpResponse.json({
      id: String(params.slug).replace('_', '/'),
      currency: 'USD',
      unit: 'per 1M tokens',
      since: 0,
      points: [],
    }),
  ),
  http.get(`${TEST_BASE}/api/v1/changes`, ({ request }) => {
    const query = new URL(request.url).searchParams;
    const items = ALL.filter(
      (e) =>
        (!query.has('model') || (e.model as { slug: string }).slug === query.get('model')) &&
        (!query.has('type') || e.eventType === query.get('type')),
    );
    return HttpResponse.json(changesPage(items, null));
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function notices(result: GetPromptResult): { uri: string; ids: string[] } {
  const content = result.messages[2]!.content;
  if (content.type !== 'resource') throw new Error('the notices are not embedded');
  const resource = content.resource as { uri: string; text: string };
  const items = (JSON.parse(resource.text) as { items: { id: string }[] }).items;
  return { uri: resource.uri, ids: items.map((item) => item.id) };
}

describe('plan_migration: the deprecation notices of a model', () => {
  it('asks the feed for the vendor slug, and finds notices by display name, name and id', async () => {
    const requests = recordRequests(server);
    const { client, close } = await connect(testApiClient('mfsk_test_key_0000000000'));
    try {
      const mini = await client.getPrompt({
        name: 'plan_migration',
        arguments: { id: 'quillon/quill-mini-2' },
      });
      const changes = requests.filter((r) => new URL(r.url).pathname === '/api/v1/changes');
      expect(changes.map((r) => new URL(r.url).searchParams.get('model'))).toEqual(['quillon']);
      expect(notices(mini)).toEqual({
        uri: 'model-feed://changes?type=deprecation&model=quillon',
        ids: [
          EVENTS.byDisplayName,
          EVENTS.byName,
          EVENTS.byNameOtherCase,
          EVENTS.withReplacement,
          EVENTS.byHuggingFaceId,
        ].map((e) => e.id),
      });

      const three = await client.getPrompt({ name: 'plan_migration', arguments: { id: 'quillon/quill-3' } });
      expect(notices(three).ids).toEqual([EVENTS.aboutTheReplacement.id, EVENTS.aboutQuill3.id]);
    } finally {
      await close();
    }
  });

  it('completes whats_new vendor with the slug the feed filters on, not the company name', async () => {
    const { client, close } = await connect(testApiClient('mfsk_test_key_0000000000'));
    try {
      const { completion } = await client.complete({
        ref: { type: 'ref/prompt', name: 'whats_new' },
        argument: { name: 'vendor', value: 'qu' },
      });
      expect(completion.values).toEqual(['quillon']);
    } finally {
      await close();
    }
  });
});
