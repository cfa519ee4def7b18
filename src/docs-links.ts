/**
 * Where a message or a help text sends someone to read more. The published package holds no
 * docs/ folder (someone who ran it with npx has none), so the pages are named by their address in
 * the repository that package.json names; a test holds the two together.
 */

const REPOSITORY = 'https://github.com/model-feed/model-feed-mcp';

/** The address of a page of docs/, e.g. `docsUrl('setup')`. */
export function docsUrl(page: 'setup' | 'watch' | 'check'): string {
  return `${REPOSITORY}/blob/main/docs/${page}.md`;
}
