/** The one version: package.json's, put in at build time (tsup and vitest both define it). */

export const VERSION: string = __PACKAGE_VERSION__;

/** package.json's `engines.node`, e.g. ">=20.18.1". */
export const NODE_ENGINES: string = __PACKAGE_ENGINES_NODE__;

export const USER_AGENT = `model-feed-mcp/${VERSION} (node ${process.versions.node}; ${process.platform})`;
