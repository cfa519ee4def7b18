/** The CA check: which certificates Node trusts, and whether NODE_EXTRA_CA_CERTS is really in effect. */

import { echoPath } from '../text/redact.js';
import { type Check, check } from './check.js';

export type ExtraCaFile = { path: string; certificates: number } | { path: string; error: string };

// doctor runs in a shell: the fix is made there first, then given to the client the same way.
const FIX =
  'Point NODE_EXTRA_CA_CERTS at a readable PEM file holding the CA certificate of your proxy or TLS inspection: export NODE_EXTRA_CA_CERTS=/path/to/ca.pem in this shell and run doctor again; then give the server the same in the MCP client\'s "env" and restart the client (Node reads it only at start).';

export function checkCaSources(defaultRoots: number, extra: ExtraCaFile | undefined): Check {
  const roots = `${defaultRoots} Node default roots`;
  // A path from the environment: one line (a CR+LF in it would forge a check line below), cut short.
  const path = extra === undefined ? '' : echoPath(extra.path);
  if (extra === undefined)
    return check('ca', { status: 'pass', detail: `${roots}; NODE_EXTRA_CA_CERTS not set` });
  if ('error' in extra) {
    return check('ca', {
      status: 'fail',
      detail: `NODE_EXTRA_CA_CERTS=${path} cannot be read (${extra.error}), so Node ignores it; ${roots} only`,
      fix: FIX,
    });
  }
  if (extra.certificates === 0) {
    return check('ca', {
      status: 'fail',
      detail: `NODE_EXTRA_CA_CERTS=${path} holds no PEM certificate, so Node ignores it; ${roots} only`,
      fix: FIX,
    });
  }
  const plural = extra.certificates === 1 ? '' : 's';
  return check('ca', {
    status: 'pass',
    detail: `${roots} + ${extra.certificates} certificate${plural} from NODE_EXTRA_CA_CERTS (${path})`,
  });
}
