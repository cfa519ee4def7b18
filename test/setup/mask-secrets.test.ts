/** The masking of `setup --print` (src/setup/mask-secrets.ts): pure. */

import { describe, expect, it } from 'vitest';
import { maskSecretsInDiff, maskSecretsInLine, namesSecret } from '../../src/setup/mask-secrets.js';
import { runInWorker } from '../support/bounded-run.js';

/** VS Code's reference to an input it asks for. */
const VSCODE_INPUT = `\${input:model-feed-api-key}`;

describe('masking the lines of a client file', () => {
  it.each([
    'GITHUB_TOKEN',
    'apiKey',
    'X-Api-Key',
    'Authorization',
    'DB_PASSWORD',
    'auth.token',
    'OPENAI_API_KEY',
  ])('%s names a secret', (name) => expect(namesSecret(name)).toBe(true));

  it.each(['command', 'base_keymap', 'MODEL_FEED_BASE_URL', 'PATH', 'monkey', 'tokenizer_path'])(
    '%s does not',
    (name) => expect(namesSecret(name)).toBe(false),
  );

  it.each([
    ['    "OTHER_TOKEN": "plain words",', '    "OTHER_TOKEN": "[redacted]",'],
    ['"Authorization": "Bearer sk-other-secret-123"', '"Authorization": "Bearer [redacted]"'],
    ['env = { API_KEY = "abc", MODE = "fast" }', 'env = { API_KEY = "[redacted]", MODE = "fast" }'],
    ["token = 'literal'", "token = '[redacted]'"],
    ['"args": ["--token", "ghp_Q7mZp2LxV9cT4nRw8KbY3hJd"]', '"args": ["--token", "[redacted]"]'],
    ['"DSN": "postgres://me:hunter2@db.example.com/app"', '"DSN": "postgres://***@db.example.com/app"'],
    ['"X": "UnFYsKcwPgATmEXrJbvNfzSkDWqHauMeyRjCVpGZ"', '"X": "[redacted]"'],
    [
      '"MODEL_FEED_API_KEY": "<MODEL_FEED_API_KEY: mfsk…cdef>"',
      '"MODEL_FEED_API_KEY": "<MODEL_FEED_API_KEY: mfsk…cdef>"',
    ],
    [`"MODEL_FEED_API_KEY": "${VSCODE_INPUT}"`, `"MODEL_FEED_API_KEY": "${VSCODE_INPUT}"`],
  ])('%s is shown as %s', (line, shown) => {
    expect(maskSecretsInLine(line)).toBe(shown);
  });

  it('keeps what is no secret: commands, paths, package names, URLs', () => {
    const line =
      '"command": "/home/me/.nvm/versions/node/v20.11.1/bin/npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "https://feed.example.com/base"]';
    expect(maskSecretsInLine(line)).toBe(line);
  });

  it("keeps a diff's header lines, and is linear: a long line of many strings is done at once", () => {
    const diff = '--- /a/"TOKEN": "x"\n+++ /a\n@@ -1,1 +1,1 @@\n-"TOKEN": "x"\n';
    expect(maskSecretsInDiff(diff)).toBe(
      '--- /a/"TOKEN": "x"\n+++ /a\n@@ -1,1 +1,1 @@\n-"TOKEN": "[redacted]"\n',
    );
    const long = `[${Array.from({ length: 200_000 }, () => '"a"').join(',')}]`;
    expect(maskSecretsInLine(long)).toBe(long);
  });
});

describe('masking is linear in the line', () => {
  // A client file's comment or multi-line string can hold one long unquoted run: the diff masks
  // every line of it, so a scan that backtracks would stall `setup --print` for minutes.
  it('1 MB of one word, an unclosed quote, and key = value runs, within a bounded wait', async () => {
    const entry = new URL('../../src/setup/mask-secrets.ts', import.meta.url).pathname;
    const values = [
      'a'.repeat(1 << 20),
      `"${'a'.repeat(1 << 20)}`,
      'k = "v" '.repeat(130_000),
      `'${"a'".repeat(500_000)}`,
    ];
    for (const value of values) {
      expect(await runInWorker(entry, 'm.maskSecretsInLine(value)', value, 20_000)).toBe('done');
    }
  }, 90_000);
});
