import { describe, expect, it } from 'vitest';
import { type Check, check, skipped } from '../../src/doctor/check.js';
import { allPassed, exitCodeFor, renderJson, renderText } from '../../src/doctor/report.js';

const passed = check('node', { status: 'pass', detail: '20.20.2 satisfies >=20.18.1' });
const warned = check('settings', { status: 'warn', detail: 'key in argv', fix: 'move it to env' });
const failed = check('tcp', {
  status: 'fail',
  detail: '127.0.0.1:9: connection refused (ECONNREFUSED)',
  fix: 'start the service',
  ms: 2,
});

describe('the exit code', () => {
  it('is 0 when every check passed, warnings included', () => {
    expect(exitCodeFor([passed, warned])).toBe(0);
    expect(allPassed([passed])).toBe(true);
  });

  it('is 1 for a failure, and for a check that did not run', () => {
    expect(exitCodeFor([passed, failed])).toBe(1);
    expect(exitCodeFor([passed, skipped('auth', 'TCP failed')])).toBe(1);
  });
});

describe('the text report', () => {
  it('prints one aligned line per check, the fix under failures and warnings, then a summary', () => {
    const checks: Check[] = [passed, warned, failed, skipped('auth', 'TCP failed')];
    expect(renderText(checks)).toBe(
      [
        '✔ Node.js         20.20.2 satisfies >=20.18.1',
        '! Settings        key in argv',
        '                  → move it to env',
        '✖ TCP             127.0.0.1:9: connection refused (ECONNREFUSED) (2 ms)',
        '                  → start the service',
        '- Authentication  skipped: TCP failed',
        'Not ready: 1 failed, 1 skipped, 2 passed, 1 with a warning. Fix the first ✖ above, then run this command again.',
        '',
      ].join('\n'),
    );
  });

  it('says all passed, counting warnings', () => {
    expect(renderText([passed])).toMatch(/\nAll 1 checks passed\.\n$/);
    expect(renderText([passed, warned])).toMatch(/\nAll 2 checks passed, 1 with a warning\.\n$/);
  });

  it('carries no color codes', () => {
    expect(renderText([passed, warned, failed])).not.toContain('\u001b[');
  });
});

describe('the JSON report', () => {
  it('is one object: ok and the checks with id, title, status, detail, fix and ms', () => {
    const parsed = JSON.parse(renderJson([passed, failed]));
    expect(parsed).toEqual({
      ok: false,
      checks: [
        { id: 'node', title: 'Node.js', status: 'pass', detail: '20.20.2 satisfies >=20.18.1' },
        {
          id: 'tcp',
          title: 'TCP',
          status: 'fail',
          detail: '127.0.0.1:9: connection refused (ECONNREFUSED)',
          fix: 'start the service',
          ms: 2,
        },
      ],
    });
    expect(JSON.parse(renderJson([passed])).ok).toBe(true);
  });
});
