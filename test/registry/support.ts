/**
 * Shared by the registry tests: the repository's files as parsed JSON, and a JSON Schema validator
 * (draft-07) for the schemas they are checked against: the MCPB manifest schema from the
 * `@anthropic-ai/mcpb` package, and our own for `server.json` (./server-json-schema.ts).
 */

import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

export const ROOT = new URL('../../', import.meta.url);

export function readText(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

export function readJson<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readText(path)) as T;
}

export interface PackageJson {
  name: string;
  version: string;
  license: string;
  bin: Record<string, string>;
  engines: { node: string };
  mcpName?: string;
}

export interface KeyValueInput {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  default?: string;
  placeholder?: string;
  choices?: string[];
}

export interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  remotes?: unknown[];
  packages: {
    registryType: string;
    registryBaseUrl?: string;
    identifier: string;
    version: string;
    runtimeHint?: string;
    transport: { type: string };
    environmentVariables: KeyValueInput[];
  }[];
}

export interface UserConfigOption {
  type: string;
  title: string;
  description: string;
  required?: boolean;
  sensitive?: boolean;
  default?: unknown;
}

export interface McpbManifest {
  manifest_version: string;
  name: string;
  version: string;
  license: string;
  server: {
    type: string;
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: { name: string; description: string }[];
  compatibility: { runtimes: { node: string } };
  user_config: Record<string, UserConfigOption>;
}

/** ajv-formats is CommonJS: depending on the loader, the plugin is the default import or its `default`. */
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

/** A validator for one draft-07 schema; returns readable errors, [] when valid. */
export function schemaValidator(schema: object): (data: unknown) => string[] {
  // Ajv's strict mode stays on: a misspelt keyword in a schema fails here instead of checking nothing.
  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (data) =>
    validate(data)
      ? []
      : (validate.errors ?? []).map(
          (e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
        );
}
