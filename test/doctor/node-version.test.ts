import { describe, expect, it } from 'vitest';
import {
  checkNodeVersion,
  compareVersions,
  parseVersion,
  satisfiesRange,
} from '../../src/doctor/node-version.js';

describe('Node version against engines', () => {
  it('parses versions with or without v, missing parts and pre-release tags', () => {
    expect(parseVersion('v20.18.1')).toEqual([20, 18, 1]);
    expect(parseVersion('20.18')).toEqual([20, 18, 0]);
    expect(parseVersion('24.0.0-pre')).toEqual([24, 0, 0]);
    expect(parseVersion('twenty')).toBeUndefined();
  });

  it('compares number by number, not as text', () => {
    expect(compareVersions([20, 9, 0], [20, 18, 1])).toBe(-1);
    expect(compareVersions([20, 18, 10], [20, 18, 9])).toBe(1);
    expect(compareVersions([22, 0, 0], [22, 0, 0])).toBe(0);
  });

  it('reads comparators, AND by spaces and OR by ||', () => {
    expect(satisfiesRange('20.18.1', '>=20.18.1')).toBe(true);
    expect(satisfiesRange('20.9.0', '>=20.18.1')).toBe(false);
    expect(satisfiesRange('20.20.2', '>=20.18.1 <21')).toBe(true);
    expect(satisfiesRange('21.0.0', '>=20.18.1 <21')).toBe(false);
    expect(satisfiesRange('18.20.0', '^20 || >=18.19')).toBeUndefined();
    expect(satisfiesRange('18.20.0', '>=22 || >=18.19')).toBe(true);
    expect(satisfiesRange('20.0.0', '20.0.0')).toBe(true);
  });

  it('passes, fails with what to install, or warns on a range it cannot read', () => {
    expect(checkNodeVersion('20.20.2', '>=20.18.1')).toMatchObject({
      id: 'node',
      status: 'pass',
      detail: '20.20.2 satisfies >=20.18.1',
    });
    const old = checkNodeVersion('20.9.0', '>=20.18.1');
    expect(old.status).toBe('fail');
    expect(old.fix).toMatch(/Install a Node\.js version matching >=20\.18\.1/);
    expect(checkNodeVersion('20.9.0', '~20').status).toBe('warn');
  });
});
