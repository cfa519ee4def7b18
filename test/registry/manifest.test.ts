import { existsSync } from 'node:fs';
// The schema the mcpb CLI validates manifests with, through the package's export of it.
import mcpbManifestSchema from '@anthropic-ai/mcpb/mcpb-manifest-v0.3.schema.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { ENV } from '../../src/config.js';
import { TOOLS } from '../../src/tools/index.js';
import { type McpbManifest, type PackageJson, ROOT, readJson, schemaValidator } from './support.js';

const manifest = readJson<McpbManifest>('manifest.json');
const pkg = readJson<PackageJson>('package.json');
const validate = schemaValidator(mcpbManifestSchema);
const { mcp_config: mcpConfig } = manifest.server;
const userConfigRef = (key: string) => `\${user_config.${key}}`;

describe('manifest.json (MCP Bundle)', () => {
  it('is valid against the MCPB manifest v0.3 schema of @anthropic-ai/mcpb', () => {
    // The schema does not require manifest_version (the mcpb CLI checks it), so it is asserted here.
    expect(manifest.manifest_version).toBe('0.3');
    expect(validate(manifest)).toEqual([]);
  });

  it('the schema really rejects a broken manifest', () => {
    const broken = structuredClone(manifest) as unknown as Record<string, unknown>;
    delete broken.author;
    (broken.server as Record<string, unknown>).type = 'deno';
    const errors = validate(broken).join('\n');
    expect(errors).toMatch(/author/);
    expect(errors).toMatch(/\/server\/type/);
  });

  it('runs the package bin with node from the bundle directory', () => {
    expect(manifest.server.type).toBe('node');
    expect(manifest.server.entry_point).toBe(pkg.bin['model-feed-mcp']);
    expect(existsSync(new URL(manifest.server.entry_point, ROOT))).toBe(true);
    expect(mcpConfig.command).toBe('node');
    expect(mcpConfig.args).toEqual([`\${__dirname}/${manifest.server.entry_point}`]);
  });

  it('passes the key and the base URL from user_config to the variables src/config.ts reads', () => {
    expect(mcpConfig.env[ENV.apiKey]).toBe(userConfigRef('api_key'));
    expect(mcpConfig.env[ENV.baseUrl]).toBe(userConfigRef('base_url'));
    expect(Object.values(ENV)).toEqual(expect.arrayContaining(Object.keys(mcpConfig.env)));
    expect(manifest.user_config.api_key).toMatchObject({ type: 'string', sensitive: true, required: true });
    expect(manifest.user_config.base_url).toMatchObject({ type: 'string', required: true });
    expect(manifest.user_config.base_url?.sensitive).not.toBe(true);
    const secrets = Object.entries(manifest.user_config).filter(([, o]) => o.sensitive);
    expect(secrets.map(([key]) => mcpConfig.env[ENV.apiKey] === userConfigRef(key))).toEqual([true]);
  });

  it('references only declared user_config keys, and gives every optional one a default', () => {
    // A host leaves `${user_config.x}` in place when x has no value: the runner would then get the
    // literal placeholder (and, for the timeout, refuse to start). Required keys are always set.
    const refs = [...JSON.stringify(mcpConfig).matchAll(/\$\{user_config\.([^}]+)\}/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const key of refs) {
      const option = manifest.user_config[key];
      expect(option, `user_config.${key}`).toBeDefined();
      if (!option?.required) expect(option?.default, `default of user_config.${key}`).toBeDefined();
    }
  });

  it('lists exactly the tools the server registers', () => {
    expect(manifest.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of manifest.tools) expect(tool.description.length).toBeGreaterThan(0);
  });

  it('matches package.json for name, license and Node range', () => {
    expect(manifest.name).toBe(pkg.name);
    expect(manifest.license).toBe(pkg.license);
    expect(manifest.compatibility.runtimes.node).toBe(pkg.engines.node);
  });
});
