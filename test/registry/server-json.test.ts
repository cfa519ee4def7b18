import { describe, expect, it } from 'vitest';
import { DEFAULTS, ENV, LOG_FORMATS, LOG_LEVELS } from '../../src/config.js';
import { serverJsonSchema } from './server-json-schema.js';
import { type PackageJson, readJson, type ServerJson, schemaValidator } from './support.js';

const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const server = readJson<ServerJson>('server.json');
const pkg = readJson<PackageJson>('package.json');
const validate = schemaValidator(serverJsonSchema);
const npmPackage = server.packages.find((p) => p.registryType === 'npm');
const envVars = npmPackage?.environmentVariables ?? [];
const envVar = (name: string) => envVars.find((v) => v.name === name);

describe('server.json (official MCP registry)', () => {
  it('is valid against our schema of the 2025-12-11 server.json format', () => {
    expect(server.$schema).toBe(SCHEMA_URL);
    expect(validate(server)).toEqual([]);
  });

  it('the schema really rejects what the registry rejects', () => {
    // Guards against a validator that passes everything (a wrong $ref, a schema that did not load).
    const broken = structuredClone(server);
    broken.description = 'x'.repeat(101);
    broken.name = 'no-slash';
    broken.packages[0]!.version = 'latest';
    const errors = validate(broken).join('\n');
    expect(errors).toMatch(/\/description/);
    expect(errors).toMatch(/\/name/);
    expect(errors).toMatch(/\/packages\/0\/version/);
  });

  it('the schema refuses a field it does not list, such as the older format’s snake_case names', () => {
    const renamed = structuredClone(server) as unknown as { packages: Record<string, unknown>[] };
    const [npm] = renamed.packages;
    npm!.environment_variables = npm!.environmentVariables;
    delete npm!.environmentVariables;
    expect(validate(renamed).join('\n')).toMatch(
      /\/packages\/0 must NOT have additional properties.*environment_variables/,
    );
  });

  it('names a reverse-DNS server with a short description, and no remote', () => {
    expect(server.name).toBe('io.github.model-feed/model-feed-mcp');
    expect(server.description.length).toBeLessThanOrEqual(100);
    // The hosted address is not published, so there is no URL a registry entry could point at.
    expect(server.remotes).toBeUndefined();
  });

  it('has exactly one npm package, run over stdio with npx from the public registry', () => {
    expect(server.packages).toHaveLength(1);
    expect(npmPackage).toMatchObject({
      registryType: 'npm',
      registryBaseUrl: 'https://registry.npmjs.org',
      identifier: pkg.name,
      runtimeHint: 'npx',
      transport: { type: 'stdio' },
    });
  });

  it('declares the key as the one required secret and the base URL as required, not secret', () => {
    expect(envVars.filter((v) => v.isSecret).map((v) => v.name)).toEqual([ENV.apiKey]);
    expect(envVar(ENV.apiKey)).toMatchObject({ isRequired: true, isSecret: true });
    expect(envVar(ENV.apiKey)?.description).toMatch(/account screen/);
    expect(envVar(ENV.baseUrl)).toMatchObject({ isRequired: true, isSecret: false });
    expect(envVar(ENV.baseUrl)?.placeholder ?? envVar(ENV.baseUrl)?.description).toMatch(/https:\/\//);
    expect(envVars.filter((v) => v.isRequired).map((v) => v.name)).toEqual([ENV.apiKey, ENV.baseUrl]);
  });

  it('declares only variables that src/config.ts reads, each once', () => {
    const names = envVars.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.values(ENV)).toEqual(expect.arrayContaining(names));
    expect(names).toEqual(expect.arrayContaining([ENV.apiKey, ENV.baseUrl, ENV.timeout, ENV.cacheTtl]));
  });

  it("gives the optional settings the runner's own defaults and choices", () => {
    expect(envVar(ENV.timeout)).toMatchObject({ format: 'number', default: String(DEFAULTS.timeoutMs) });
    expect(envVar(ENV.cacheTtl)).toMatchObject({ format: 'number', default: String(DEFAULTS.cacheTtlS) });
    expect(envVar(ENV.logLevel)).toMatchObject({ default: DEFAULTS.logLevel, choices: [...LOG_LEVELS] });
    expect(envVar(ENV.logFormat)).toMatchObject({ default: DEFAULTS.logFormat, choices: [...LOG_FORMATS] });
  });
});
