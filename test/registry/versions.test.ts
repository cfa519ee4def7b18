import { describe, expect, it } from 'vitest';
import { type McpbManifest, type PackageJson, readJson, type ServerJson } from './support.js';

const pkg = readJson<PackageJson>('package.json');
const server = readJson<ServerJson>('server.json');
const manifest = readJson<McpbManifest>('manifest.json');

describe('registry files agree with package.json', () => {
  it('carry the package version everywhere', () => {
    expect(server.version, 'server.json version').toBe(pkg.version);
    expect(
      server.packages.map((p) => p.version),
      'server.json packages[].version',
    ).toEqual([pkg.version]);
    expect(manifest.version, 'manifest.json version').toBe(pkg.version);
  });

  it('point the registry entry at this npm package', () => {
    expect(server.packages.map((p) => p.identifier)).toEqual([pkg.name]);
  });

  it('name the registry entry with package.json mcpName (the registry checks it on npm)', () => {
    expect(
      pkg.mcpName,
      `package.json has no "mcpName": add "mcpName": "${server.name}" so the MCP registry can verify the npm package`,
    ).toBeDefined();
    expect(pkg.mcpName, 'package.json mcpName must equal server.json name').toBe(server.name);
  });
});
