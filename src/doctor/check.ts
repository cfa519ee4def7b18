/** What one doctor check found. The shape `--json` prints, one entry per check, in order. */

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export type CheckId =
  | 'node'
  | 'settings'
  | 'base-url'
  | 'proxy'
  | 'ca'
  | 'dns'
  | 'tcp'
  | 'tls'
  | 'auth'
  | 'rate-limit';

export interface Check {
  id: CheckId;
  title: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** What to do about a failure or warning. */
  fix?: string;
  /** How long a network step took. */
  ms?: number;
}

export const TITLES: Record<CheckId, string> = {
  node: 'Node.js',
  settings: 'Settings',
  'base-url': 'Base URL',
  proxy: 'Proxy',
  ca: 'CA certificates',
  dns: 'DNS',
  tcp: 'TCP',
  tls: 'TLS',
  auth: 'Authentication',
  'rate-limit': 'Rate limit',
};

type Outcome = Omit<Check, 'id' | 'title'>;

export function check(id: CheckId, outcome: Outcome): Check {
  return { id, title: TITLES[id], ...outcome };
}

/** A check not run because something it needs failed or is missing; never counts as a pass. */
export function skipped(id: CheckId, reason: string): Check {
  return check(id, { status: 'skip', detail: `skipped: ${reason}` });
}
