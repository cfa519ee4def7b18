/** Replaced at build time by tsup and vitest `define`: package.json's version. */
declare const __PACKAGE_VERSION__: string;
/** Replaced at build time: package.json's `engines.node`, e.g. ">=20.18.1". */
declare const __PACKAGE_ENGINES_NODE__: string;
