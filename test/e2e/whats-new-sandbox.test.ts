/**
 * `whats_new` under `--sandbox`, through a real MCP client over stdio with the built CLI: the
 * sample data ends in 2026-06, months before the default 7-day window, so the window is empty. The
 * prompt says so, gives the date of the latest change, and attaches the most recent changes
 * instead, marked as outside the window.
 */

import type { GetPromptResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { connectCli, scrubbedEnv } from './harness.js';

function texts(result: GetPromptResult): string[] {
  return result.messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : []));
}

function resources(result: GetPromptResult): { uri: string; data: Record<string, unknown> }[] {
  return result.messages.flatMap((m) => {
    if (m.content.type !== 'resource') return [];
    const resource = m.content.resource as { uri: string; text: string };
    return [{ uri: resource.uri, data: JSON.parse(resource.text) as Record<string, unknown> }];
  });
}

describe('whats_new --sandbox: an empty window', () => {
  it('says nothing changed, dates the latest change, and attaches the most recent ones as outside the window', async () => {
    const session = await connectCli(scrubbedEnv(), ['--sandbox']);
    try {
      const result = await session.client.getPrompt({ name: 'whats_new' });
      const [text = ''] = texts(result);
      const lines = text.split('\n');
      expect(lines[0]).toMatch(
        /^Nothing changed in AI models in the last 7 days: the change feed has no changes since \d{4}-\d\d-\d\d \(model-feed:\/\/changes\?since=\d+, attached, empty\)\.$/,
      );
      expect(lines[1]).toMatch(
        /^The latest change in the feed is from 2026-06-30, \d+ days ago\. The 5 most recent changes are attached instead \(model-feed:\/\/changes\?limit=5, newest first, marked "outsideWindow": true\): all from before the last 7 days\.$/,
      );
      expect(lines[2]).toBe(
        'Say plainly first that nothing changed in the last 7 days, and that the latest change is from 2026-06-30.',
      );
      expect(text).toContain(
        'under a heading that says they are from before the window, never as recent news',
      );
      expect(text).toContain(
        'Note: the attached data is sample data from the built-in sandbox, not the live service.',
      );
      expect(result.description).toBe(
        'No model changes in the last 7 days; the latest, from 2026-06-30, attached instead',
      );

      const [window, recent] = resources(result);
      expect(window?.data).toMatchObject({ days: 7, items: [], latest: null });
      expect(recent?.uri).toBe('model-feed://changes?limit=5');
      expect(recent?.data).toMatchObject({ outsideWindow: true, days: 7, since: window?.data.since });
      expect(recent?.data.note).toMatch(
        /^The feed's most recent changes, newest first: all from before the last 7 days \(since \d{4}-\d\d-\d\d\), not new\.$/,
      );
      const items = recent?.data.items as { detectedAt: string }[];
      expect(items).toHaveLength(5);
      expect(items[0]?.detectedAt).toBe('2026-06-30T21:47:25Z');
      // Newest first, and every one from before the window.
      const times = items.map((item) => Date.parse(item.detectedAt) / 1000);
      expect(times).toEqual([...times].sort((a, b) => b - a));
      for (const time of times) expect(time).toBeLessThan(Number(window?.data.since));
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
