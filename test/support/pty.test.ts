import { describe, expect, it } from 'vitest';
import { spawnPty } from './pty.js';

describe('spawnPty', () => {
  it('gives the command a terminal of the size asked, and takes typed keys', async () => {
    const pty = spawnPty(
      [
        process.execPath,
        '-e',
        "console.log('tty', process.stdin.isTTY, process.stdout.columns); process.stdin.setRawMode(true); process.stdin.once('data', (d) => { console.log('got', String(d)); process.exit(3); })",
      ],
      { env: { PATH: process.env.PATH ?? '' }, columns: 77 },
    );
    await pty.waitFor('tty true 77');
    pty.type('x');
    await pty.waitFor('got x');
    expect(await pty.exited).toBe(3);
  });
});
