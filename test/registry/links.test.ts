/**
 * Every relative link and anchor in README.md and docs/*.md resolves: the file exists, and a
 * `#anchor` names a heading of the target (or an explicit `<a id>` / `<a name>`), slugged the way
 * GitHub does. A broken link in the front door is the first thing a new user meets.
 */

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchors, links, slug } from './markdown.js';
import { ROOT, readText } from './support.js';

const rootDir = fileURLToPath(ROOT);
const pages = [
  'README.md',
  ...readdirSync(join(rootDir, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];

describe('the slug rules', () => {
  it('follow GitHub: lowercase, punctuation dropped except - and _, spaces to -', () => {
    expect(slug('MCP Bundle (`manifest.json`)')).toBe('mcp-bundle-manifestjson');
    expect(slug('`_meta` keys')).toBe('_meta-keys');
    expect(slug('Hosted endpoint or local runner?')).toBe('hosted-endpoint-or-local-runner');
    expect(slug('From source, before the package is on npm')).toBe(
      'from-source-before-the-package-is-on-npm',
    );
    expect(slug('One-click: the MCP Bundle (`.mcpb`)')).toBe('one-click-the-mcp-bundle-mcpb');
    expect(slug('Serve it over HTTP on this machine (`--http`)')).toBe(
      'serve-it-over-http-on-this-machine---http',
    );
    expect(slug('Claude Code: one `.mcp.json` for a team')).toBe('claude-code-one-mcpjson-for-a-team');
  });

  it('number repeated headings and keep explicit anchors, ignoring code blocks', () => {
    const page = '# A\n## Usage\n## Usage\n```sh\n# not a heading\n```\n<a id="here"></a>\n';
    expect([...anchors(page)].sort()).toEqual(['a', 'here', 'usage', 'usage-1']);
  });

  it('find links in prose only', () => {
    const page =
      '[a](x.md#y) `[b](no.md)` [c](https://e.com) <a href="z.md">z</a>\n```\n[d](no.md)\n```\n[e]: ref.md\n';
    expect(links(page)).toEqual(['x.md#y', 'ref.md', 'z.md']);
  });
});

describe.each(pages)('links in %s', (page) => {
  const text = readText(page);

  it('point at files that exist, and at anchors those files have', () => {
    const broken: string[] = [];
    for (const target of links(text)) {
      const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      if (file.startsWith('..') || !existsSync(join(rootDir, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!file.endsWith('.md') || statSync(join(rootDir, file)).isDirectory()) {
        broken.push(`${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchors(readText(file)).has(decodeURIComponent(anchor))) {
        broken.push(`${target}: no heading or id "${anchor}" in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
