import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CorporateNetwork,
  HOST,
  PROXY_PASSWORD,
  PROXY_USER,
  startCorporateNetwork,
} from '../support/corporate-network.js';
import { connectCli, eventually, resultText, scrubbedEnv } from './harness.js';

const KEY = 'mfsk_behind_the_proxy_0123456789';

let network: CorporateNetwork;
let baseUrl: string;

beforeAll(async () => {
  network = await startCorporateNetwork(KEY);
  baseUrl = network.baseUrl;
});
afterAll(() => network?.close());

const proxyUrl = () => network.proxyUrl;

describe('behind a corporate proxy with TLS inspection', () => {
  it('reaches HTTPS through HTTPS_PROXY (CONNECT, credentials in the URL) with a private CA from NODE_EXTRA_CA_CERTS', async () => {
    network.proxy.connects.length = 0;
    network.service.app.clearRequests();
    const session = await connectCli(
      scrubbedEnv({
        MODEL_FEED_API_KEY: KEY,
        MODEL_FEED_BASE_URL: baseUrl,
        HTTPS_PROXY: proxyUrl(),
        NODE_EXTRA_CA_CERTS: network.certs.caFile,
        MODEL_FEED_LOG_LEVEL: 'debug',
      }),
    );
    try {
      const result = await session.call('get_model', { id: 'openai/gpt-4o' });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ catalogStatus: 'listed' });
      expect(network.proxy.connects[0]).toEqual({
        target: `${HOST}:${network.service.port}`,
        proxyAuthorization: `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`,
      });
      expect(network.service.app.requests.map((r) => r.headers.authorization)).toEqual([
        `Bearer ${KEY}`,
        `Bearer ${KEY}`,
      ]);
      // The proxy in use is logged at debug level, without its credentials; the key never.
      expect(session.stderr()).toContain(`via http://***@127.0.0.1:${network.proxy.port} (from HTTPS_PROXY)`);
      expect(session.stderr()).not.toContain(PROXY_PASSWORD);
      expect(session.stderr()).not.toContain(KEY);
    } finally {
      await session.close();
    }
  });

  it('without the CA file, fails with a message naming the certificate problem and NODE_EXTRA_CA_CERTS', async () => {
    const session = await connectCli(
      scrubbedEnv({ MODEL_FEED_API_KEY: KEY, MODEL_FEED_BASE_URL: baseUrl, HTTPS_PROXY: proxyUrl() }),
    );
    try {
      const result = await session.call('list_model_changes', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /^TLS certificate problem connecting to feed\.internal\.test:\d+ via proxy http:\/\/\*\*\*@127\.0\.0\.1:\d+: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\), after 1 attempt\. .*NODE_EXTRA_CA_CERTS/,
      );
      expect(resultText(result)).not.toContain(PROXY_PASSWORD);
    } finally {
      await session.close();
    }
  });

  it('a proxy that wants credentials it did not get: says so', async () => {
    const session = await connectCli(
      scrubbedEnv({
        MODEL_FEED_API_KEY: KEY,
        MODEL_FEED_BASE_URL: baseUrl,
        HTTPS_PROXY: `http://127.0.0.1:${network.proxy.port}`,
        NODE_EXTRA_CA_CERTS: network.certs.caFile,
      }),
    );
    try {
      const result = await session.call('list_model_changes', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /proxy .*asked for authentication \(407\).*http:\/\/user:password@proxy:port/,
      );
    } finally {
      await session.close();
    }
  });

  it('NO_PROXY sends the request direct: the proxy sees nothing', async () => {
    network.proxy.connects.length = 0;
    const session = await connectCli(
      scrubbedEnv({
        MODEL_FEED_API_KEY: KEY,
        MODEL_FEED_BASE_URL: baseUrl,
        HTTPS_PROXY: proxyUrl(),
        NO_PROXY: '.internal.test',
        NODE_EXTRA_CA_CERTS: network.certs.caFile,
        MODEL_FEED_TIMEOUT_MS: '3000',
      }),
    );
    try {
      const result = await session.call('list_model_changes', {});
      // Direct, the name does not resolve: that is the proof it did not go through the proxy.
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/Could not reach feed\.internal\.test:\d+: DNS lookup failed/);
      expect(resultText(result)).not.toContain('via proxy');
      expect(network.proxy.connects).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('--proxy overrides the env vars', async () => {
    network.proxy.connects.length = 0;
    const session = await connectCli(
      scrubbedEnv({
        MODEL_FEED_API_KEY: KEY,
        MODEL_FEED_BASE_URL: baseUrl,
        HTTPS_PROXY: 'http://127.0.0.1:9',
        NODE_EXTRA_CA_CERTS: network.certs.caFile,
      }),
      ['--proxy', proxyUrl()],
    );
    try {
      // The idle warm-up opens the tunnel through --proxy; the call then goes through that one.
      await eventually(() => network.proxy.connects.length === 1, 'the warm-up tunnel');
      await new Promise((r) => setTimeout(r, 200));
      const result = await session.call('search_models', { limit: 1 });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(network.proxy.connects).toHaveLength(1);
    } finally {
      await session.close();
    }
  });
});
