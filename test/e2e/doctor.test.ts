import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { closedPort } from '../support/closed-port.js';
import {
  type CorporateNetwork,
  PROXY_PASSWORD,
  PROXY_USER,
  startCorporateNetwork,
} from '../support/corporate-network.js';
import { run, scrubbedEnv } from './harness.js';

interface DoctorCheck {
  id: string;
  title: string;
  status: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
  ms?: number;
}

const TLS_KEY = 'mfsk_doctor_behind_proxy_0123456789';

let sandbox: Sandbox;
let network: CorporateNetwork;

beforeAll(async () => {
  [sandbox, network] = await Promise.all([startSandbox(), startCorporateNetwork(TLS_KEY)]);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), network?.close()]);
});

/** `doctor --json` with only the given env; bounded: every step has a 3 s limit. */
async function doctor(env: Record<string, string>, args: string[] = []) {
  const out = await run(
    ['doctor', '--json', ...args],
    scrubbedEnv({ MODEL_FEED_TIMEOUT_MS: '3000', ...env }),
  );
  const report = JSON.parse(out.stdout) as { ok: boolean; checks: DoctorCheck[] };
  const check = (id: string): DoctorCheck => {
    const found = report.checks.find((c) => c.id === id);
    if (!found) throw new Error(`no ${id} check in ${out.stdout}`);
    return found;
  };
  return { ...out, report, check };
}

const sandboxEnv = () => ({ MODEL_FEED_BASE_URL: sandbox.url, MODEL_FEED_API_KEY: sandbox.key });
const httpsEnv = () => ({
  MODEL_FEED_BASE_URL: network.baseUrl,
  MODEL_FEED_API_KEY: TLS_KEY,
  HTTPS_PROXY: network.proxyUrl,
});

describe('model-feed-mcp doctor', () => {
  it('passes against the sandbox: every check, the tier and the calls left, and never the key', async () => {
    const out = await doctor(sandboxEnv());
    expect(out.code, out.stdout).toBe(0);
    expect(out.report.ok).toBe(true);
    expect(out.report.checks.map((c) => c.id)).toEqual([
      'node',
      'settings',
      'base-url',
      'proxy',
      'ca',
      'dns',
      'tcp',
      'auth',
      'rate-limit',
    ]);
    expect(out.report.checks.filter((c) => c.status !== 'pass' && c.status !== 'warn')).toEqual([]);
    expect(out.check('rate-limit').detail).toMatch(/^tier free: \d+ of 1000 calls left today$/);
    expect(out.check('settings').detail).toMatch(/API key mfsk…\w{4} \(\d+ chars, sha256 [0-9a-f]{8}\)/);
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });

  it('prints one aligned line per check in text mode, without color codes', async () => {
    const out = await run(['doctor'], scrubbedEnv(sandboxEnv()));
    expect(out.code, out.stdout).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^✔ Node\.js {10}\d+\.\d+\.\d+ satisfies >=\d+\.\d+\.\d+$/);
    expect(lines.slice(0, -1).every((line) => line.startsWith('✔ '))).toBe(true);
    expect(lines.at(-1)).toBe('All 9 checks passed.');
    expect(out.stdout).not.toContain('\u001b[');
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });

  it('checks an in-process sandbox with --sandbox', async () => {
    const out = await doctor({}, ['--sandbox']);
    expect(out.code, out.stdout).toBe(0);
    expect(out.check('settings').detail).toMatch(/^--sandbox: /);
  });

  it('fails on a revoked key, saying it was rejected', async () => {
    const revoked = 'mfsk_doctor_revoked_0123456789abcdef';
    sandbox.addKey(revoked, 'free');
    sandbox.revokeKey(revoked);
    const out = await doctor({ ...sandboxEnv(), MODEL_FEED_API_KEY: revoked });
    expect(out.code).toBe(1);
    expect(out.check('tcp').status).toBe('pass');
    expect(out.check('auth')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('HTTP 401'),
      fix: expect.stringMatching(/rejected the API key .*missing, wrong or revoked/),
    });
    expect(out.check('rate-limit').status).toBe('skip');
    expect(out.stdout + out.stderr).not.toContain(revoked);
  });

  it('names a refused connection to an unreachable host and skips what depends on it', async () => {
    const port = await closedPort();
    const out = await doctor({
      MODEL_FEED_BASE_URL: `http://127.0.0.1:${port}`,
      MODEL_FEED_API_KEY: 'mfsk_x_0123456789',
    });
    expect(out.code).toBe(1);
    expect(out.check('tcp')).toMatchObject({
      status: 'fail',
      detail: `127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    });
    expect(out.check('auth')).toMatchObject({ status: 'skip', detail: 'skipped: TCP failed' });
  });

  it('names the base-URL setting the user gave in its fix: the flag, or the variable', async () => {
    const port = await closedPort();
    const byFlag = await doctor({ MODEL_FEED_API_KEY: 'mfsk_x_0123456789' }, [
      '--base-url',
      `http://127.0.0.1:${port}`,
    ]);
    expect(byFlag.check('tcp').fix).toBe(
      'Nothing accepts connections there: check the port in --base-url and that the service is running.',
    );
    const byVariable = await doctor({
      MODEL_FEED_BASE_URL: `http://127.0.0.1:${port}`,
      MODEL_FEED_API_KEY: 'mfsk_x_0123456789',
    });
    expect(byVariable.check('tcp').fix).toBe(
      'Nothing accepts connections there: check the port in MODEL_FEED_BASE_URL and that the service is running.',
    );
  });

  it('without the private CA: the TLS check names the certificate problem and NODE_EXTRA_CA_CERTS', async () => {
    const out = await doctor(httpsEnv());
    expect(out.code).toBe(1);
    const tls = out.check('tls');
    expect(tls.status).toBe('fail');
    expect(tls.detail).toMatch(
      /^certificate of feed\.internal\.test not accepted: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    expect(tls.fix).toMatch(
      /^TLS certificate problem connecting to feed\.internal\.test:\d+ via proxy .*NODE_EXTRA_CA_CERTS/,
    );
    expect(out.check('auth').detail).toBe('skipped: TLS failed');
    expect(out.stdout + out.stderr).not.toContain(PROXY_PASSWORD);
  });

  it('with NODE_EXTRA_CA_CERTS and HTTPS_PROXY: passes, saying which proxy, why, and who resolves the name', async () => {
    network.proxy.connects.length = 0;
    const out = await doctor({ ...httpsEnv(), NODE_EXTRA_CA_CERTS: network.certs.caFile });
    expect(out.code, out.stdout).toBe(0);
    expect(out.check('proxy').detail).toBe(
      `via http://***@127.0.0.1:${network.proxy.port} (from HTTPS_PROXY)`,
    );
    expect(out.check('dns').detail).toBe(
      'proxy 127.0.0.1 → 127.0.0.1; feed.internal.test itself is resolved by the proxy',
    );
    expect(out.check('ca').detail).toMatch(/\+ 1 certificate from NODE_EXTRA_CA_CERTS/);
    expect(out.check('tls').detail).toMatch(
      /^certificate of feed\.internal\.test verified, issued by model-feed-mcp test CA .*through a CONNECT tunnel via http:\/\/\*\*\*@127\.0\.0\.1:\d+$/,
    );
    // The TLS probe's tunnel and the authenticated request's both carried the proxy credentials.
    expect(network.proxy.connects.map((c) => c.proxyAuthorization)).toEqual([
      `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`,
      `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`,
    ]);
    expect(out.stdout + out.stderr).not.toContain(PROXY_PASSWORD);
    expect(out.stdout + out.stderr).not.toContain(TLS_KEY);
  });

  it('a proxy that wants credentials: says to put them in the proxy URL', async () => {
    const out = await doctor({
      ...httpsEnv(),
      HTTPS_PROXY: `http://127.0.0.1:${network.proxy.port}`,
      NODE_EXTRA_CA_CERTS: network.certs.caFile,
    });
    expect(out.code).toBe(1);
    expect(out.check('tls').fix).toMatch(
      /asked for authentication \(407\).*http:\/\/user:password@proxy:port/,
    );
  });

  it('a NODE_EXTRA_CA_CERTS file that is not there: Node ignores it, and doctor says so', async () => {
    const out = await doctor({ ...sandboxEnv(), NODE_EXTRA_CA_CERTS: '/nonexistent/corp-ca.pem' });
    expect(out.code).toBe(1);
    expect(out.check('ca')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('NODE_EXTRA_CA_CERTS=/nonexistent/corp-ca.pem cannot be read (ENOENT)'),
    });
  });

  it('fails without a key, naming MODEL_FEED_API_KEY, and still checks the connection', async () => {
    const out = await doctor({ MODEL_FEED_BASE_URL: sandbox.url });
    expect(out.code).toBe(1);
    expect(out.check('settings')).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/^No API key: set MODEL_FEED_API_KEY/),
    });
    expect(out.check('tcp').status).toBe('pass');
    expect(out.check('auth').detail).toBe('skipped: no API key (see Settings)');
  });

  it('never prints the key, even where a setting carries it by mistake', async () => {
    const out = await doctor({ ...sandboxEnv(), MODEL_FEED_BASE_URL: `${sandbox.url}/${sandbox.key}` });
    expect(out.code).toBe(1);
    expect(out.check('settings')).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/^MODEL_FEED_BASE_URL contains the API key/),
    });
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });

  it('warns when the key is in the command line, without printing it', async () => {
    const out = await run(['doctor', `MODEL_FEED_API_KEY=${sandbox.key}`], scrubbedEnv(sandboxEnv()));
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toMatch(/^! Settings .*WARNING: the API key appears in the command-line arguments/m);
    expect(out.stdout).toMatch(/^ +→ Remove the key from the command line/m);
    expect(out.stdout + out.stderr).not.toContain(sandbox.key);
  });
});

describe('doctor and a hostile service', () => {
  /** Escape sequences (CSI, OSC title, OSC 8 link), bidi overrides and line breaks, as a service could send them. */
  const HOSTILE =
    '\x1b]0;owned\x07\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 key revoked\u202e\u2066\n✓ Auth      forged pass line\r\n\x9b31m';
  /** What must not reach a terminal raw: C0 (but the line feeds doctor writes itself), C1, bidi controls. */
  const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

  it('prints its error text and headers with no escape sequence, bidi override or forged line', async () => {
    const REJECTED = 'mfsk_doctor_hostile_rejected_0123456789';
    const ACCEPTED = 'mfsk_doctor_hostile_accepted_0123456789';
    const server = createHttpServer((req, res) => {
      const rejected = req.headers.authorization === `Bearer ${REJECTED}`;
      // Header values may carry C1 bytes (0x80-0xff) but no C0: a CSI in its one-byte form.
      res.writeHead(rejected ? 401 : 200, {
        'content-type': 'application/json',
        'x-service-tier': 'pro\x9b2J\x85x',
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '900',
      });
      res.end(JSON.stringify(rejected ? { error: HOSTILE } : { items: [], nextCursor: null, latest: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const key of [REJECTED, ACCEPTED]) {
        const env = scrubbedEnv({
          MODEL_FEED_BASE_URL: base,
          MODEL_FEED_API_KEY: key,
          MODEL_FEED_TIMEOUT_MS: '3000',
        });
        const text = await run(['doctor'], env);
        const json = await run(['doctor', '--json'], env);
        expect(text.code, text.stdout).toBe(key === REJECTED ? 1 : 0);
        for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) {
          expect(out, JSON.stringify(out)).not.toMatch(UNSAFE);
          expect(out).not.toContain(key);
        }
        // The service's line break did not start a line of its own that looks like a check.
        expect(text.stdout).not.toMatch(/^\W*Auth +forged/m);
        // …and what the service said is still shown, made printable.
        if (key === REJECTED) expect(text.stdout).toContain('The service said: "click key revoked');
        expect(JSON.parse(json.stdout)).toHaveProperty('checks');
      }
    } finally {
      server.close();
    }
  });
});
