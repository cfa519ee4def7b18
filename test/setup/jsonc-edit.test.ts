import { describe, expect, it } from 'vitest';
import { mcpServersJson } from '../../src/setup/clients/mcp-servers-json.js';
import { vscodeJson } from '../../src/setup/clients/vscode-json.js';
import type { ServerEntry } from '../../src/setup/entry.js';
import * as lib from '../../src/setup/formats.js';
import { detectStyle, parseJsonc } from '../../src/setup/jsonc-edit.js';
import { ConfigParseError, ConfigShapeError } from '../../src/setup/problems.js';

const entry: ServerEntry = {
  command: 'npx',
  args: ['-y', 'model-feed-mcp'],
  env: { MODEL_FEED_API_KEY: 'mfsk_test_key_0123456789', MODEL_FEED_BASE_URL: 'https://feed.example' },
};
const cursor = mcpServersJson('mcpServers');

function roundTrip(format: typeof cursor, original: string): string {
  const added = format.add(original, entry, lib);
  expect(format.remove(added, lib)).toBe(original);
  return added;
}

describe('JSONC edits', () => {
  it('adds after another server without touching its line or its trailing comment, and removes exactly that', () => {
    const original = `{
  // my servers
  "mcpServers": {
    "other": { "command": "uvx", "args": ["other"] } // keep me
  },
  "unknown": [1, 2]
}
`;
    const added = roundTrip(cursor, original);
    expect(added).toContain(
      `    "other": { "command": "uvx", "args": ["other"] }, // keep me\n    "model-feed": {`,
    );
    expect(lib.parseTree(added)).toBeDefined();
    expect(JSON.parse(added.replace('// my servers', '').replace('// keep me', ''))).toEqual({
      mcpServers: { other: { command: 'uvx', args: ['other'] }, 'model-feed': entry },
      unknown: [1, 2],
    });
  });

  it("keeps the file's tabs, CRLF line ends and trailing commas", () => {
    const original =
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "x"},\r\n\t},\r\n\t"theme": "dark",\r\n}\r\n';
    const added = roundTrip(cursor, original);
    expect(added).toContain('\t\t"model-feed": {\r\n\t\t\t"command": "npx",\r\n');
    expect(added.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('creates the top-level key, and the whole file, when missing; removal leaves the key, empty', () => {
    const added = cursor.add('{\n    "theme": "dark"\n}\n', entry, lib);
    expect(cursor.remove(added, lib)).toBe('{\n    "theme": "dark",\n    "mcpServers": {}\n}\n');
    expect(cursor.add('', entry, lib)).toBe(
      '{\n  "mcpServers": {\n    "model-feed": {\n      "command": "npx",\n      "args": ["-y", "model-feed-mcp"],\n      "env": {\n        "MODEL_FEED_API_KEY": "mfsk_test_key_0123456789",\n        "MODEL_FEED_BASE_URL": "https://feed.example"\n      }\n    }\n  }\n}\n',
    );
    expect(cursor.add('{}', entry, lib)).toContain('"model-feed"');
    expect(cursor.remove(cursor.add('{"mcpServers": {}}\n', entry, lib), lib)).toBe('{"mcpServers": {}}\n');
    expect(cursor.add('// nothing yet\n', entry, lib)).toMatch(/^\/\/ nothing yet\n\{\n {2}"mcpServers"/);
  });

  it('merges into an existing entry: our values replace theirs, their other keys stay', () => {
    const original = `{
  "mcpServers": {
    "model-feed": {
      "command": "node",
      "args": ["old.js"],
      "disabled": false,
      "env": { "HTTPS_PROXY": "http://proxy:3128", "MODEL_FEED_API_KEY": "old" }
    }
  }
}
`;
    const merged = cursor.add(original, entry, lib);
    const value = lib.getNodeValue(parseJsonc(lib, merged)!) as { mcpServers: Record<string, unknown> };
    expect(value.mcpServers['model-feed']).toEqual({
      command: 'npx',
      args: ['-y', 'model-feed-mcp'],
      disabled: false,
      env: { HTTPS_PROXY: 'http://proxy:3128', ...entry.env },
    });
    expect(cursor.add(merged, entry, lib)).toBe(merged);
  });

  it('Zed: context_servers, in a settings file with other settings and comments', () => {
    const zed = mcpServersJson('context_servers');
    const original =
      '// Zed settings\n{\n  "ui_font_size": 16,\n  /* servers */\n  "context_servers": {}\n}\n';
    const added = roundTrip(zed, original);
    expect(added).toContain('"context_servers": {\n    "model-feed": {');
  });

  it('VS Code: servers with type stdio and an input for the key; the key itself is never written', () => {
    const original = `{
  "inputs": [
    { "type": "promptString", "id": "other-token", "password": true }
  ],
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }
  }
}
`;
    const added = roundTrip(vscodeJson, original);
    const value = lib.getNodeValue(parseJsonc(lib, added)!) as {
      servers: Record<string, { type: string; env: Record<string, string> }>;
      inputs: { id: string; password?: boolean }[];
    };
    expect(value.servers['model-feed']?.type).toBe('stdio');
    expect(value.servers['model-feed']?.env.MODEL_FEED_API_KEY).toBe(`\${input:model-feed-api-key}`);
    expect(value.inputs.map((i) => i.id)).toEqual(['other-token', 'model-feed-api-key']);
    expect(added).not.toContain('mfsk_test_key');
    // Added twice: still one input.
    expect(vscodeJson.add(added, entry, lib)).toBe(added);
    roundTrip(vscodeJson, '{\n  "inputs": [],\n  "servers": {}\n}\n');
  });

  it('a file that does not parse throws with its line and column', () => {
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n';
    expect(() => cursor.add(broken, entry, lib)).toThrow(ConfigParseError);
    try {
      cursor.add(broken, entry, lib);
    } catch (error) {
      expect(error).toMatchObject({ line: 4, column: 5, detail: 'CommaExpected' });
    }
  });

  it('refuses a file whose shape has no place for the entry', () => {
    expect(() => cursor.add('[]', entry, lib)).toThrow(ConfigShapeError);
    expect(() => cursor.add('{"mcpServers": []}', entry, lib)).toThrow(
      /"mcpServers" is an array, not an object/,
    );
  });

  it('detects the indentation unit', () => {
    expect(detectStyle('{\n    "a": {\n        "b": 1\n    }\n}')).toEqual({ unit: '    ', eol: '\n' });
    expect(detectStyle('')).toEqual({ unit: '  ', eol: '\n' });
  });
});

describe('edits found in review', () => {
  it('keeps CRLF line ends whole when adding after a member with a trailing comment', () => {
    const original = '{\r\n  "mcpServers": {\r\n    "other": { "command": "x" } // trailing\r\n  }\r\n}\r\n';
    const added = roundTrip(cursor, original);
    expect(added).not.toMatch(/\r(?!\n)/);
    expect(added.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('replaces an entry that pointed at an HTTP endpoint whole: no hybrid, no old key left', () => {
    const original = `{
  "mcpServers": {
    "model-feed": { "url": "https://hosted.example/api/mcp", "headers": { "Authorization": "Bearer mfsk_old_key_0000" } }
  }
}
`;
    const added = cursor.add(original, entry, lib);
    expect(added).not.toContain('mfsk_old_key_0000');
    expect(added).not.toContain('"url"');
    expect(JSON.parse(added).mcpServers['model-feed']).toEqual(entry);
  });
});

describe('keys a client would read differently', () => {
  const zed = mcpServersJson('context_servers');
  it.each([
    [
      'a second "mcpServers"',
      cursor,
      '{\n  "mcpServers": {},\n  "mcpServers": {}\n}\n',
      '"mcpServers" appears twice, on lines 2 and 3',
    ],
    [
      'a second "model-feed"',
      cursor,
      '{\n  "mcpServers": {\n    "model-feed": { "command": "a" },\n    "other": {},\n    "model-feed": { "command": "b" }\n  }\n}\n',
      '"mcpServers" → "model-feed" appears twice, on lines 3 and 5',
    ],
    [
      'a second "env" inside ours',
      cursor,
      '{"mcpServers": {"model-feed": {\n"env": {},\n"env": {"A": "1"}}}}\n',
      '"mcpServers" → "model-feed" → "env" appears twice, on lines 2 and 3',
    ],
    [
      'a second "context_servers" (Zed)',
      zed,
      '{\n  "context_servers": {\n  },\n  "context_servers": {}\n}',
      'lines 2 and 4',
    ],
    [
      'a second "servers" (VS Code)',
      vscodeJson,
      '{\n"servers": {},\n"servers": {}\n}\n',
      '"servers" appears twice, on lines 2 and 3',
    ],
    [
      'a second "inputs" (VS Code)',
      vscodeJson,
      '{\n"inputs": [],\n"servers": {},\n"inputs": []\n}\n',
      '"inputs" appears twice, on lines 2 and 4',
    ],
  ])('%s: refused by add and by remove, naming both lines', (_case, format, text, said) => {
    expect(() => format.add(text, entry, lib)).toThrow(ConfigShapeError);
    expect(() => format.add(text, entry, lib)).toThrow(said);
    // Removing our entry takes all of it, so only the keys on the way to it matter there.
    if (said.includes('"env"')) return;
    const withOurs = text.replace('{}', '{"model-feed": {}}');
    expect(() => format.remove(withOurs, lib)).toThrow(said);
  });

  it('a file nested deeper than any config is refused with its line, without overflowing the stack', () => {
    const deep = `{\n  "a": ${'['.repeat(100_000)}${']'.repeat(100_000)}\n}\n`;
    expect(() => cursor.add(deep, entry, lib)).toThrow(ConfigParseError);
    expect(() => cursor.remove(deep, lib)).toThrow(/nested more than 128 levels deep/);
    try {
      cursor.add(deep, entry, lib);
    } catch (error) {
      expect(error).toMatchObject({ line: 2, column: 135 });
    }
    // Brackets in strings and comments do not count.
    const quoted = `{\n  "a": "${'['.repeat(500)}", // ${'{'.repeat(500)}\n  /* ${'['.repeat(500)} */ "mcpServers": {}\n}\n`;
    expect(roundTrip(cursor, quoted)).toContain('"model-feed"');
  });

  it.each([
    '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}',
    '{"mcpServers": {"a": {"command": "x"}}}',
    '{\r\n  "mcpServers": {}\r\n}',
  ])('no final newline: add then remove gives back the same bytes (%j)', (original) => {
    expect(cursor.remove(cursor.add(original, entry, lib), lib)).toBe(original);
  });
});
