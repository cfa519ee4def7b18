// Start-up timing shared by scripts/bench.mjs (its start-up table) and scripts/bench-startup-ab.mjs
// (an A/B of two builds): the two protocol openings, and one process timed from spawn.
import { spawn } from 'node:child_process';

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** The 2026-07-28 per-request envelope: every request of that era carries it. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

const line = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

/** Each era's opening: what is sent first (answered as id 1), then what asks for tools/list (id 2). */
export const OPENINGS = {
  2025: {
    first: line({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
    next: line({ method: 'notifications/initialized' }) + line({ id: 2, method: 'tools/list' }),
  },
  2026: {
    first: line({ id: 1, method: 'server/discover', params: { _meta: ENVELOPE } }),
    next: line({ id: 2, method: 'tools/list', params: { _meta: ENVELOPE } }),
  },
};

/**
 * Spawn → the opening answered (`initialize`) → `tools/list` answered, in ms, for the CLI at `bin`;
 * without `bin`, bare node timed to the same point, its first byte on stdout (its exit would add the
 * time a process takes to end).
 */
export function startOnce(node, env, bin, opening = OPENINGS[2025]) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const args = bin ? [bin] : ['-e', "process.stdout.write('x')"];
    const child = spawn(node, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('start-up run timed out'));
    }, 10_000);
    child.once('exit', () => clearTimeout(timer));
    if (!bin) {
      child.stdout.once('data', () => {
        const firstOutput = elapsed();
        child.once('exit', () => resolve({ firstOutput }));
      });
      return;
    }
    const marks = {};
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (marks.initialize === undefined && out.includes('"id":1')) {
        marks.initialize = elapsed();
        child.stdin.write(opening.next);
      }
      if (marks.toolsList === undefined && out.includes('"id":2')) {
        marks.toolsList = elapsed();
        child.stdin.end();
        child.once('exit', () => resolve(marks));
      }
    });
    child.stdin.write(opening.first);
  });
}
