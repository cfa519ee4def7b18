/** The one version: package.json's, put in at build time (tsup and vitest both define it). */

export const VERSION: string = __PACKAGE_VERSION__;

export const USER_AGENT = `model-feed-mcp/${VERSION} (node ${process.versions.node}; ${process.platform})`;
