/**
 * The MCP registry's `server.json` format, as far as our `server.json` uses it: a JSON Schema
 * (draft-07) of our own, because no package ships the registry's. Written from the published
 * specification, the 2025-12-11 schema
 * (https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, generated from
 * `docs/reference/api/openapi.yaml` in github.com/modelcontextprotocol/registry) and its prose,
 * `docs/reference/server-json/generic-server-json.md` there. Every limit below is one that schema
 * states. Where this one is stricter, a comment says so: it requires the fields we rely on, and
 * refuses fields it does not list, so a misspelt or renamed field (the older format's
 * `environment_variables`, say) fails instead of passing unread. A field we start to use is added
 * here from the specification, with its limits.
 */

/** An environment variable a client sets when it runs the package (the spec's `KeyValueInput`). */
const environmentVariable = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    isRequired: { type: 'boolean' },
    isSecret: { type: 'boolean' },
    format: { enum: ['string', 'number', 'boolean', 'filepath'] },
    // Values are strings even for numbers and booleans ("15000", "true"): a client passes them on as text.
    default: { type: 'string' },
    placeholder: { type: 'string' },
    choices: { type: 'array', items: { type: 'string' } },
    value: { type: 'string' },
  },
} as const;

/** How a client talks to the started package (the spec's `LocalTransport`). */
const transport = {
  oneOf: [
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { const: 'stdio' } },
    },
    {
      type: 'object',
      required: ['type', 'url'],
      properties: {
        type: { enum: ['streamable-http', 'sse'] },
        url: { type: 'string', pattern: '^https?://[^\\s]+$' },
        headers: { type: 'array', items: environmentVariable },
      },
    },
  ],
} as const;

const npmPackage = {
  type: 'object',
  // The spec requires registryType, identifier and transport; version and registryBaseUrl are ours.
  required: ['registryType', 'registryBaseUrl', 'identifier', 'version', 'transport'],
  additionalProperties: false,
  properties: {
    registryType: { type: 'string' },
    registryBaseUrl: { type: 'string', format: 'uri' },
    identifier: { type: 'string' },
    // A package names one exact release: the registry refuses the moving tag "latest".
    version: { type: 'string', minLength: 1, not: { const: 'latest' } },
    runtimeHint: { type: 'string' },
    transport,
    environmentVariables: { type: 'array', items: environmentVariable },
  },
} as const;

export const serverJsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  // The spec requires name, description and version; $schema and packages are ours.
  required: ['$schema', 'name', 'description', 'version', 'packages'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', format: 'uri' },
    // Reverse-DNS namespace, a slash, then the server's own name.
    name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
    title: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', maxLength: 255 },
    packages: { type: 'array', minItems: 1, items: npmPackage },
  },
} as const;
