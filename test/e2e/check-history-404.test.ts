/**
 * A model the catalog lists whose price history answers 404 (removed between two reads, or a
 * service out of step with itself): `check` goes on, and says of that model that its price was not
 * checked, and why. It must not stop the whole scan.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { tempFolder } from '../support/temp.js';
import { run, scrubbedEnv } from './harness.js';

/** The model whose history the stub refuses: in the catalog, and deprecated in the feed. */
const GONE = 'mistralai/devstral-2512';

let sandbox: Sandbox;
let stub: Server;
let stubUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  // The sandbox, but for one history, which answers 404 as the service does for an unknown model.
  stub = createServer((req, res) => {
    if (req.url?.startsWith(`/api/v1/models/${GONE.replace('/', '_')}/history`)) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `Model "${GONE}" is not in the catalog.` }));
      return;
    }
    const upstream = httpRequest(
      `${sandbox.url}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});
afterAll(async () => {
  stub.closeAllConnections();
  await new Promise((resolve) => stub.close(resolve));
  await sandbox.close();
});

describe('check with a price history that answers 404', () => {
  it("goes on: the model's other findings are reported, with a note that its price was not checked", async () => {
    const tree = tempFolder('mf-check-404-');
    mkdirSync(join(tree, 'src'));
    writeFileSync(join(tree, 'src/app.py'), `A = "${GONE}"\nB = "z-ai/glm-5.1"\n`);
    const env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: stubUrl });
    const text = await run(['check', '--since', '2026-06-01', '.'], env, { cwd: tree });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(`✖ ${GONE} fails: deprecated 2026-06-03`);
    expect(text.stdout).toContain(`    src/app.py:1:6  ${GONE}\n`);
    expect(text.stdout).toContain('• z-ai/glm-5.1  price increase since 2026-06-01');
    expect(text.stdout).toContain('    src/app.py:2:6  z-ai/glm-5.1\n');
    expect(text.stdout).toContain(
      `Not price-checked: ${GONE} (the service has no price history for it: HTTP 404).`,
    );

    const json = await run(['check', '--since', '2026-06-01', '--format', 'json', '.'], env, { cwd: tree });
    expect(json.code, json.stderr).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.summary.noPriceHistory).toEqual([{ model: GONE, reason: 'HTTP 404' }]);
    expect(report.summary.findings).toMatchObject({ deprecated: 1, price_increase: 1 });

    const sarif = await run(['check', '--since', '2026-06-01', '--format', 'sarif', '.'], env, { cwd: tree });
    expect(JSON.parse(sarif.stdout).runs[0].invocations[0].toolExecutionNotifications).toEqual([
      {
        level: 'warning',
        message: { text: `not price-checked: ${GONE} (the service has no price history for it: HTTP 404)` },
      },
    ]);
  });
});
