import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/check/matcher.js';
import { MAX_LISTED_PER_FILE, scanPaths } from '../../src/check/scan.js';
import { tempFolder } from '../support/temp.js';

const matcher = compileMatcher([
  { id: 'openai/gpt-4o', name: 'GPT-4o' },
  { id: 'openai/gpt-4o-mini', name: 'GPT-4o mini' },
]);

describe('scanPaths', () => {
  it('lists a file’s first 1,000 references, then only texts and models it has not named yet', async () => {
    const folder = tempFolder('mf-check-scan-');
    // One minified line naming one model 5,000 times, then another model and a near miss.
    writeFileSync(
      join(folder, 'bundle.js'),
      `${'m("gpt-4o");'.repeat(5000)}m("gpt-4o-mini");m("openai/gpt-4x");`,
    );
    writeFileSync(join(folder, 'app.py'), 'model = "gpt-4o"  # model-feed-ignore\n\nother = "GPT-4o"\n');
    const scan = await scanPaths([folder], matcher, { maxFileSize: 1024 * 1024 });
    const bundle = scan.references.filter((r) => r.path.endsWith('bundle.js'));
    expect(bundle).toHaveLength(MAX_LISTED_PER_FILE + 2);
    expect(bundle.slice(-2).map((r) => [r.text, r.modelId, r.suggestions])).toEqual([
      ['gpt-4o-mini', 'openai/gpt-4o-mini', []],
      ['openai/gpt-4x', null, ['openai/gpt-4o']],
    ]);
    expect(scan.repeatsNotListed).toBe(4000);
    // Another file starts its own count; a silenced line is not listed at all.
    expect(
      scan.references.filter((r) => r.path.endsWith('app.py')).map((r) => [r.line, r.column, r.text]),
    ).toEqual([[3, 10, 'GPT-4o']]);
  });
});
