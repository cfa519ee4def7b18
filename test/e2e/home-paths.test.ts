/**
 * A home folder the system cannot give (HOME longer than a path may be): every command, the stdio
 * server included, says which setting is wrong and what to do, instead of "Internal error".
 */

import { describe, expect, it } from 'vitest';
import { run } from './harness.js';

const longHome = `/tmp/${'a'.repeat(5000)}`;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: longHome };

describe('HOME longer than a path may be', () => {
  for (const args of [['call', 'search_models', '--sandbox'], ['watch', '--sandbox', '--once'], []]) {
    it(`${args.join(' ') || 'the stdio server'}: names HOME and the fix, exit 2, without quoting it`, async () => {
      const out = await run(args, env, { input: '' });
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toContain('HOME');
      expect(out.stderr).toContain('Set HOME to');
      expect(out.stderr).not.toContain('Internal error');
      expect(out.stderr).not.toContain('a'.repeat(200));
    });
  }
});
