/**
 * A validator for SARIF 2.1.0 logs, from the schema `@microsoft/jest-sarif` ships (the
 * 2.1.0-rtm.5 schema, the last draft before the OASIS standard: it differs from the standard's
 * schema in three `kind` enum values of external property files and in checking GUIDs by pattern
 * instead of `format`). The package has no `exports` map; this is the file its own matchers load.
 * Its matchers themselves need Jest, so the schema is read here and compiled with Ajv.
 */

import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import ajvDraft04 from 'ajv-draft-04';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

const require = createRequire(import.meta.url);

/** ajv-formats is CommonJS: depending on the loader, the plugin is the default import or its `default`. */
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;
/** ajv-draft-04 is CommonJS whose export is the class, which also carries itself as `default`. */
const Ajv04 = ajvDraft04.default;

export function sarifValidator(): ValidateFunction {
  const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as object;
  // The schema is draft-04 (hence ajv-draft-04). unicodeRegExp: false because its `language`
  // pattern, `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`, is invalid with the `u` flag Ajv 8 adds;
  // without it the pattern means what it meant to the Ajv 6 the package validates with.
  const ajv = new Ajv04({ allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
