/** The sandbox's `/api/mcp` refuses foreign Host and Origin headers (DNS rebinding), as `--http` does. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMcpEndpoint } from '../../src/sandbox/mcp-endpoint.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { INITIALIZE_PARAMS, MCP_HEADERS, rawRequest, rpc } from '../http/raw-request.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ mcp: serveMcpEndpoint });
});
afterAll(() => sandbox.close());

describe('the sandbox /api/mcp and DNS rebinding', () => {
  const body = rpc(1, 'initialize', INITIALIZE_PARAMS);
  const port = () => new URL(sandbox.url).port;

  it('403 for a foreign Host or Origin, before the key and unrecorded', async () => {
    sandbox.clearRequests();
    for (const headers of [
      { host: 'evil.example' },
      { host: `evil.example:${port()}` },
      { host: `localhost:${port()}`, origin: 'http://evil.example' },
    ]) {
      for (const key of [{ authorization: `Bearer ${sandbox.key}` }, {}]) {
        const answer = await rawRequest(`${sandbox.url}/api/mcp`, {
          headers: { ...MCP_HEADERS, ...key, ...headers },
          body,
        });
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(JSON.parse(answer.body).error).toMatch(/^Forbidden: (Host|Origin) /);
      }
    }
    expect(sandbox.requests).toEqual([]);
  });

  it('accepts the loopback names with its port, with or without Origin', async () => {
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`]) {
      for (const origin of [{}, { origin: `http://${host}` }]) {
        const answer = await rawRequest(`${sandbox.url}/api/mcp`, {
          headers: { ...MCP_HEADERS, authorization: `Bearer ${sandbox.key}`, host, ...origin },
          body,
        });
        expect(answer.status, host).toBe(200);
      }
    }
  });

  it('leaves the REST endpoints as they were: a proxy may send them any Host', async () => {
    const answer = await rawRequest(`${sandbox.url}/api/v1/models`, {
      method: 'GET',
      headers: { authorization: `Bearer ${sandbox.key}`, host: 'feed.example' },
    });
    expect(answer.status).toBe(200);
  });
});
