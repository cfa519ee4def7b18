/**
 * A private CA and a server certificate it signs, made fresh with openssl for each run (nothing
 * key-like is committed). Stands in for a corporate CA that re-signs traffic.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolder } from './temp.js';

export interface TestCertificates {
  dir: string;
  caFile: string;
  cert: string;
  key: string;
}

export function makeCertificates(hostname: string): TestCertificates {
  const dir = tempFolder('model-feed-mcp-certs-');
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=model-feed-mcp test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${hostname}`,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  writeFileSync(file('ext.cnf'), `subjectAltName=DNS:${hostname}\nbasicConstraints=CA:FALSE\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('server.pem'),
  );
  return {
    dir,
    caFile: file('ca.pem'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    key: readFileSync(file('server.key'), 'utf8'),
  };
}
