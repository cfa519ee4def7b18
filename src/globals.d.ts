/** Replaced at build time by tsup and vitest `define`: package.json's version. */
declare const __PACKAGE_VERSION__: string;
