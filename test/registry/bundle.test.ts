/**
 * `npm run bundle`: the .mcpb is a sound zip with the manifest at its root, and the server it holds
 * runs as an MCPB host starts it (node <bundle>/bin/model-feed-mcp.cjs), with nothing else installed.
 */

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempFolder } from '../support/temp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('packs a valid .mcpb whose server runs from the unpacked folder', () => {
  const work = tempFolder('mf-mcpb-');
  const file = join(work, 'model-feed-mcp.mcpb');
  execFileSync(process.execPath, [join(root, 'scripts/bundle.mjs'), '--out', file], { stdio: 'pipe' });
  // unzip's own check of every entry's CRC and sizes: an independent reader of what we wrote.
  expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toContain('No errors detected');
  const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
  expect(names).toContain('manifest.json');
  expect(names).toContain('bin/model-feed-mcp.cjs');
  expect(names).toContain('dist/index.cjs');
  expect(names.some((name) => name.endsWith('.v8cache') || name.startsWith('node_modules/'))).toBe(false);

  const unpacked = join(work, 'unpacked');
  execFileSync('unzip', ['-q', file, '-d', unpacked]);
  const out = execFileSync(
    process.execPath,
    [
      join(unpacked, 'bin/model-feed-mcp.cjs'),
      'call',
      'search_models',
      '--vendor',
      'openai',
      '--limit',
      '1',
      '--sandbox',
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  expect(out).toContain('openai/');
});
