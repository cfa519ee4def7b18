/**
 * The built CLI as someone new to it meets it: `call` with no tool, the help of `call`, the root
 * and `doctor`, doctor with no account, and no word of the project's own jargon in what it says.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { run, scrubbedEnv } from './harness.js';

const TOOLS = 'list_model_changes, get_model, search_models';

describe('call', () => {
  it('with no tool says a tool is missing and lists the tools: exit 2', async () => {
    const result = await run(['call']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(
      `error: call needs the name of a tool: one of ${TOOLS}. For example \`model-feed-mcp call search_models --sandbox\`; \`model-feed-mcp call <tool> --help\` lists a tool's flags.`,
    );
    // Settings alone are still no tool.
    const withSetting = await run(['call', '--sandbox']);
    expect(withSetting.code).toBe(2);
    expect(withSetting.stderr).toContain('call needs the name of a tool');
  });

  it('--help calls the tools tools, in its usage line and its headings', async () => {
    const result = await run(['call', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: model-feed-mcp call <tool> [flags]');
    expect(result.stdout).toContain('\nTools:\n');
    expect(result.stdout).toContain("help [tool]                   show a tool's flags");
    expect(result.stdout).not.toContain('Commands:');
    expect(result.stdout).not.toContain('[command]');
  });

  it('a misspelt tool before a flag is named as the mistake, not the flag', async () => {
    const result = await run(['call', 'list_changes', '--limit', '3']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: unknown tool 'list_changes'. Did you mean list_model_changes? The tools are ${TOOLS}; \`model-feed-mcp call <tool> --help\` lists a tool's flags.`,
    );
  });
});

describe('help', () => {
  it("the root help's exit codes include check's", async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '1  a check, tool call or delivery failed (doctor, call, watch), or check found a failing finding',
    );
    expect(result.stdout).toContain(
      '2  invalid flags or settings; for check also a path it could not read, or no file to scan',
    );
  });

  it("doctor --help lists only the settings doctor reads, and doctor still takes the server's others", async () => {
    const help = await run(['doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain('--watch-interval');
    expect(help.stdout).not.toContain('--stale-max-age');
    expect(help.stdout).toContain('--base-url');
    // A client config's "args" pasted in: taken, not refused.
    const pasted = await run(['doctor', '--sandbox', '--watch-interval', '30', '--stale-max-age', '60']);
    expect(pasted.stderr).not.toContain('unknown option');
    expect(pasted.code, pasted.stdout + pasted.stderr).toBe(0);
  });
});

describe('doctor with no key and no account', () => {
  it('names the ways on without an account once', async () => {
    const result = await run(['doctor']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('No account?')).toHaveLength(2);
    expect(result.stdout).toContain('--source public');
    const json = await run(['doctor', '--json']);
    expect(json.stdout.split('No account?')).toHaveLength(2);
  });
});

describe('started through npx', () => {
  // npx sets npm_command=exec; there the bare name is usually not on the shell's PATH.
  const npx = { ...scrubbedEnv(), npm_command: 'exec' };

  it('names each command to run as npx -y model-feed-mcp …', async () => {
    const call = await run(['call'], npx);
    expect(call.stderr.split('\n')[0]).toBe(
      `error: call needs the name of a tool: one of ${TOOLS}. For example \`npx -y model-feed-mcp call search_models --sandbox\`; \`npx -y model-feed-mcp call <tool> --help\` lists a tool's flags.`,
    );
    const doctor = await run(['doctor'], npx);
    expect(doctor.stdout).toContain('run `npx -y model-feed-mcp doctor --source public` to check them');
    const typo = await run(['doctr'], npx);
    expect(typo.stderr).toContain('(run npx -y model-feed-mcp --help for usage)');
  });

  it('a copy started by its name says the bare name', async () => {
    const doctor = await run(['doctor']);
    expect(doctor.stdout).toContain('run `model-feed-mcp doctor --source public` to check them');
    expect(doctor.stdout).not.toContain('npx');
  });
});

describe('words', () => {
  it('the built CLI never says "runner", the project\'s own word for itself', () => {
    const dist = new URL('../../dist/', import.meta.url);
    const bundles = readdirSync(dist).filter((name) => name.endsWith('.cjs'));
    expect(bundles.length).toBeGreaterThan(0);
    for (const name of bundles) {
      const text = readFileSync(new URL(name, dist), 'utf8');
      expect(text.match(/.{0,60}\brunners?\b.{0,20}/gi) ?? [], name).toEqual([]);
    }
  });

  it('a base URL pointing at an endpoint is refused without jargon', async () => {
    const result = await run(['call', 'search_models', '--base-url', 'https://feed.example.com/api/v1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('model-feed-mcp adds /api/v1/…');
  });
});

describe('the setting a message names', () => {
  it('is the one the base URL came from: --base-url when given as a flag, the variable when set there', async () => {
    // A web server that is not the service: every path is 404.
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const key = { MODEL_FEED_API_KEY: 'mfsk_test_0123456789abcdef0123456789' };
      const flag = await run(
        ['call', 'search_models', '--base-url', base, '--no-disk-cache'],
        scrubbedEnv(key),
      );
      expect(flag.code).toBe(1);
      expect(flag.stderr).toContain("--base-url must be the service's base URL");
      expect(flag.stderr).not.toContain('MODEL_FEED_BASE_URL');
      const variable = await run(
        ['call', 'search_models', '--no-disk-cache'],
        scrubbedEnv({ ...key, MODEL_FEED_BASE_URL: base }),
      );
      expect(variable.code).toBe(1);
      expect(variable.stderr).toContain("MODEL_FEED_BASE_URL must be the service's base URL");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('docs/sandbox.md', () => {
  it('points only at files in the repository', () => {
    const root = new URL('../../', import.meta.url);
    const doc = readFileSync(new URL('docs/sandbox.md', root), 'utf8');
    const named = [...doc.matchAll(/`((?:[\w.-]+\/)*[\w.-]+\.(?:ts|json|md|mjs))`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    const missing = named.filter((path) => {
      try {
        readFileSync(new URL(path, root));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });
});
