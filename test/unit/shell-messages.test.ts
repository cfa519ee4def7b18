/**
 * The fixes `doctor` and `watch` print, word for word. Both run in a shell: they say `export … in
 * this shell` first, and the client's "env" only for what the server needs afterwards.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangesQuery, FeedApi } from '../../src/api/client.js';
import { resolveConfig } from '../../src/config.js';
import { checkCaSources } from '../../src/doctor/ca-check.js';
import { serviceDestination, tlsFailed } from '../../src/doctor/network-outcomes.js';
import { planRoute } from '../../src/doctor/route.js';
import { checkSettings } from '../../src/doctor/settings-check.js';
import { NetworkError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { chooseProxy } from '../../src/net/proxy.js';
import { runWatcher } from '../../src/watch/watcher.js';
import { silentStatus, watchOptions } from '../fixtures.js';
import { tempFolder } from '../support/temp.js';

const BASE = 'https://feed.example.com';
const KEY = 'mfsk_shell_0123456789abcdef';

describe('doctor', () => {
  it('an unusable NODE_EXTRA_CA_CERTS: export it in this shell, then the same in the client', () => {
    const fix =
      'Point NODE_EXTRA_CA_CERTS at a readable PEM file holding the CA certificate of your proxy or TLS inspection: export NODE_EXTRA_CA_CERTS=/path/to/ca.pem in this shell and run doctor again; then give the server the same in the MCP client\'s "env" and restart the client (Node reads it only at start).';
    expect(checkCaSources(140, { path: '/etc/ca.pem', error: 'ENOENT' }).fix).toBe(fix);
    expect(checkCaSources(140, { path: '/etc/ca.pem', certificates: 0 }).fix).toBe(fix);
  });

  it('a key on the command line: remove it, export it in this shell instead', () => {
    const config = resolveConfig(
      {},
      { MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: BASE },
      [`--key=${KEY}`],
      {
        audience: 'shell',
      },
    );
    expect(config.keyInArgv).toBe(true);
    expect(checkSettings({ config, env: {}, sandboxUrl: undefined }).fix).toBe(
      'Remove the key from the command line (and from the client config\'s "args" if it came from there): arguments show in process lists and shared config files. Set it in the environment instead: export MODEL_FEED_API_KEY=<your key> in this shell, and "MODEL_FEED_API_KEY" in the client\'s "env" for the server.',
    );
  });

  it('TLS: a certificate from a private CA, and a handshake that fails otherwise', () => {
    const direct = { flag: undefined, https: undefined, http: undefined, noProxy: undefined };
    const route = planRoute(BASE, chooseProxy(new URL(BASE), direct));
    const untrusted = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    expect(tlsFailed(route, untrusted, 5, 'handshake', serviceDestination(undefined)).fix).toBe(
      'TLS certificate problem connecting to feed.example.com:443: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN), after 1 attempt. If a proxy or TLS inspection re-signs traffic with a private CA, set NODE_EXTRA_CA_CERTS to that CA certificate (PEM file) in this shell (export NODE_EXTRA_CA_CERTS=/path/to/ca.pem); it is added to the default roots.',
    );
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(tlsFailed(route, reset, 5, 'handshake', serviceDestination('MODEL_FEED_BASE_URL')).fix).toBe(
      "Check that MODEL_FEED_BASE_URL points at the service's HTTPS address; a proxy or firewall may be interfering.",
    );
  });
});

/** A feed that fails every read with `error`. */
function failingApi(error: Error): FeedApi {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return {
    readChanges: (_query: ChangesQuery) => fail(),
    listChanges: fail,
    listChangesCached: fail,
    listModels: fail,
    getPriceHistory: fail,
    rateLimit: undefined,
  };
}

describe('watch', () => {
  const untrusted = new NetworkError(
    'SELF_SIGNED_CERT_IN_CHAIN',
    'self-signed certificate in certificate chain',
    {
      method: 'GET',
      path: '/api/v1/changes?since=0&limit=100',
      host: 'feed.example.com',
      attempts: 3,
      proxy: undefined,
    },
  );
  const shellFix =
    'TLS certificate problem connecting to feed.example.com: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN), after 3 attempts. If a proxy or TLS inspection re-signs traffic with a private CA, set NODE_EXTRA_CA_CERTS to that CA certificate (PEM file) in this shell (export NODE_EXTRA_CA_CERTS=/path/to/ca.pem); it is added to the default roots.';

  async function watch(once: boolean) {
    const lines: string[] = [];
    const controller = new AbortController();
    const log = createLogger({ level: 'warn', format: 'text', write: (line) => void lines.push(line) });
    const result = await runWatcher(
      watchOptions({ once }),
      {
        api: failingApi(untrusted),
        sink: { label: 'memory', deliver: async () => {}, flush: async () => {}, close: async () => {} },
        log,
        status: silentStatus,
        statePath: join(tempFolder('mf-shell-'), 'state.json'),
        service: 'memory',
        now: () => 1_000_000,
        // The first wait ends the run: one failed poll is enough.
        sleep: async () => {
          controller.abort();
          throw new Error('stopped');
        },
        random: () => 0.5,
      },
      controller.signal,
    );
    return { result, lines };
  }

  it("--once: a certificate problem ends it with the shell's fix", async () => {
    const { result } = await watch(true);
    expect(result).toEqual({ code: 1, message: shellFix });
  });

  it("following: the failed poll is logged with the shell's fix and when it retries", async () => {
    const { lines } = await watch(false);
    expect(lines).toEqual([
      `model-feed-mcp warn: polling failed (1 in a row): ${shellFix} Retrying in 2 s.\n`,
    ]);
  });
});
