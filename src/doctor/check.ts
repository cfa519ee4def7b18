/** What one doctor check found. The shape `--json` prints, one entry per check, in order. */

/** `off`: turned off on purpose (a public origin set to `off`); neither a failure nor a pass. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip' | 'off';

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
  | 'rate-limit'
  | 'source'
  | 'origin'
  | 'get'
  | 'record';

export interface Check {
  id: CheckId;
  title: string;
  status: CheckStatus;
  /** The public origin a check is about (`openrouter`, `models.dev`, …), as `dataSource` names it. */
  origin?: string;
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
  source: 'Data source',
  origin: 'Address',
  get: 'GET',
  record: 'Public record',
};

type Outcome = Omit<Check, 'id' | 'title'>;

export function check(id: CheckId, outcome: Outcome): Check {
  return { id, title: TITLES[id], ...outcome };
}

/** A check not run because something it needs failed or is missing; never counts as a pass. */
export function skipped(id: CheckId, reason: string): Check {
  return check(id, { status: 'skip', detail: `skipped: ${reason}` });
}
