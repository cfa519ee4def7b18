/** The texts a person reads about a mistyped tool or flag, each asserted word for word. */
import { describe, expect, it } from 'vitest';
import {
  closestFlag,
  closestTool,
  flagsMeant,
  type ToolFlags,
  typedFlags,
  unknownToolMessage,
} from '../../src/call-flags.js';
import { resolveConfig } from '../../src/config.js';
import { describeError } from '../../src/describe-error.js';
import {
  ApiError,
  AuthError,
  NetworkError,
  NotFoundError,
  type RequestFacts,
  ServerError,
} from '../../src/errors.js';

const TOOLS = ['list_model_changes', 'get_model', 'search_models'];
const request: RequestFacts = {
  method: 'GET',
  path: '/api/v1/changes?limit=1',
  host: 'feed.example.com',
  attempts: 1,
  proxy: undefined,
};
const BASE_URL = { MODEL_FEED_BASE_URL: 'https://feed.example.com' };

describe("the service's words at the end of a sentence", () => {
  it('end it once: no double full stop after words that end with one', () => {
    const said = 'No endpoint at /api/v1/changes; the MCP endpoint is POST /api/mcp.';
    expect(describeError(new NotFoundError(404, said, request, undefined))).toBe(
      `Nothing at feed.example.com/api/v1/changes?limit=1 (HTTP 404): ${said} MODEL_FEED_BASE_URL must be the service's base URL, without /api/v1 or /api/mcp.`,
    );
    expect(describeError(new NotFoundError(404, 'no route', request, undefined))).toContain(
      '(HTTP 404): no route. ',
    );
    const history = { ...request, path: '/api/v1/models/a_b/history' };
    expect(describeError(new NotFoundError(404, 'Unknown model!', history, undefined))).toBe(
      'Not in the catalog (HTTP 404 for /api/v1/models/a_b/history): Unknown model!',
    );
    expect(describeError(new ApiError(418, 'Short and stout.', request, undefined))).toBe(
      'The service refused the request (HTTP 418 for /api/v1/changes?limit=1): Short and stout.',
    );
  });
});

describe('call: a tool name that does not exist', () => {
  it('suggests the closest tool: shared words first, then fewest edits', () => {
    expect(closestTool('list_changes', TOOLS)).toBe('list_model_changes');
    expect(closestTool('get_models', TOOLS)).toBe('get_model');
    expect(closestTool('search', TOOLS)).toBe('search_models');
    expect(closestTool('serch_model', TOOLS)).toBe('search_models');
    expect(closestTool('lookup', TOOLS)).toBeUndefined();
  });

  it('says "unknown tool", the guess and every tool', () => {
    expect(unknownToolMessage('list_changes', TOOLS)).toBe(
      "unknown tool 'list_changes'. Did you mean list_model_changes? The tools are list_model_changes, get_model, search_models; `model-feed-mcp call <tool> --help` lists a tool's flags.",
    );
    expect(unknownToolMessage('lookup\x1b[2J', TOOLS)).toBe(
      "unknown tool 'lookup'. The tools are list_model_changes, get_model, search_models; `model-feed-mcp call <tool> --help` lists a tool's flags.",
    );
  });

  it('names each argument by the flag typed last, kebab-case unless the camelCase one was', () => {
    const names = ['maxInputPrice', 'minContext', 'limit'];
    expect(
      typedFlags(['call', 'search_models', '--maxInputPrice', 'x', '--min-context', '1'], names),
    ).toEqual({
      maxInputPrice: '--maxInputPrice',
      minContext: '--min-context',
      limit: '--limit',
    });
    expect(typedFlags(['--maxInputPrice=1', '--max-input-price', '2'], names).maxInputPrice).toBe(
      '--max-input-price',
    );
  });
});

describe('an unknown flag: the one most likely meant', () => {
  const searchModels = [
    '--vendor',
    '--max-input-price',
    '--min-context',
    '--limit',
    '--json',
    '--stale-max-age',
  ];

  it('shares its last word, or is a few edits away; commander suggests only the second kind', () => {
    expect(closestFlag('--max-price', searchModels)).toBe('--max-input-price');
    expect(closestFlag('--maxPrice', searchModels)).toBe('--max-input-price');
    expect(closestFlag('--price', searchModels)).toBe('--max-input-price');
    expect(closestFlag('--limt', searchModels)).toBe('--limit');
    expect(closestFlag('--watch-interval', ['--since', '--interval', '--once'])).toBe('--interval');
    expect(closestFlag('--cache', ['--cache-ttl', '--no-disk-cache'])).toBe('--cache-ttl');
    // A shared word that is not the noun is no evidence: --max-price is not about an age.
    expect(closestFlag('--max-price', ['--stale-max-age', '--since'])).toBeUndefined();
    expect(closestFlag('--model', ['--id', '--json'])).toBeUndefined();
    // A flag of another command was typed on purpose: a look-alike is no guess then.
    expect(closestFlag('--http', ['--help', '--json'])).toBe('--help');
    expect(closestFlag('--http', ['--help', '--json'], { spelling: false })).toBeUndefined();
  });

  const tools: ToolFlags[] = [
    {
      name: 'list_model_changes',
      arguments: [
        { name: 'since', description: 'Unix seconds: only changes after it, oldest first.' },
        { name: 'type', description: 'Only this kind of change.' },
        { name: 'model', description: 'Vendor slug, e.g. openai.' },
        { name: 'limit', description: 'Items per answer (default 20).' },
      ],
      required: [],
    },
    { name: 'get_model', arguments: [{ name: 'id', description: 'e.g. openai/gpt-4o' }], required: ['id'] },
    {
      name: 'search_models',
      arguments: [
        { name: 'vendor', description: 'Catalog namespace, e.g. openai.' },
        { name: 'maxInputPrice', description: 'Max USD per 1M input tokens.' },
        { name: 'minContext', description: 'Min context length, tokens.' },
        { name: 'limit', description: 'Max models returned (default 20).' },
      ],
      required: [],
    },
  ];
  const [changes, getModel, search] = tools as [ToolFlags, ToolFlags, ToolFlags];

  it('for a tool, from what the arguments are about where the spelling says nothing', () => {
    // get_model is about one model, and takes it as --id.
    expect(flagsMeant('--model', getModel, tools)).toEqual(['--id']);
    // list_model_changes' --model is a vendor slug: search_models calls that --vendor.
    expect(flagsMeant('--model', search, tools)).toEqual(['--vendor']);
    // And the other way: list_model_changes describes its --model as a vendor slug.
    expect(flagsMeant('--vendor', changes, tools)).toEqual(['--model']);
    expect(flagsMeant('--kind', changes, tools)).toEqual(['--type']);
    expect(flagsMeant('--tokens', search, tools)).toEqual(['--max-input-price', '--min-context']);
    expect(flagsMeant('--name', getModel, tools)).toEqual([]);
    expect(flagsMeant('--limit', getModel, tools)).toEqual([]);
  });
});

describe('settings messages', () => {
  it('with neither key nor base URL, one message names both, for the client or for a shell', () => {
    expect(resolveConfig({}, {}).setupError?.message).toBe(
      'No service address and no API key: set MODEL_FEED_BASE_URL and MODEL_FEED_API_KEY in the MCP client\'s "env" for this server, e.g. "env": {"MODEL_FEED_BASE_URL": "https://<service host>", "MODEL_FEED_API_KEY": "<your key>"}. The base URL comes with your account; create a key on the service\'s account screen (it is shown only once). No account? Put "--source", "public" in this server\'s "args" for real data from the public origins with no key, or "--sandbox" for sample data.',
    );
    expect(resolveConfig({}, {}, [], { audience: 'shell' }).setupError?.message).toBe(
      "No service address and no API key: set MODEL_FEED_BASE_URL and MODEL_FEED_API_KEY in this shell, e.g. export MODEL_FEED_BASE_URL=https://<service host> MODEL_FEED_API_KEY=<your key>. The base URL comes with your account; create a key on the service's account screen (it is shown only once). No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).",
    );
  });

  it('a missing key or base URL alone: the client\'s "env" for the server, export for a shell', () => {
    expect(resolveConfig({}, BASE_URL).setupError?.message).toBe(
      'No API key: set MODEL_FEED_API_KEY in the MCP client\'s "env" for this server (e.g. MODEL_FEED_API_KEY=<your key>). Create a key on the service\'s account screen; it is shown only once. No account? Put "--source", "public" in this server\'s "args" for real data from the public origins with no key, or "--sandbox" for sample data.',
    );
    expect(resolveConfig({}, BASE_URL, [], { audience: 'shell' }).setupError?.message).toBe(
      "No API key: set MODEL_FEED_API_KEY in this shell (export MODEL_FEED_API_KEY=<your key>). Create a key on the service's account screen; it is shown only once. No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).",
    );
    expect(
      resolveConfig({}, { MODEL_FEED_API_KEY: 'mfsk_abcdef123456' }, [], { audience: 'shell' }).setupError
        ?.message,
    ).toBe(
      "No service address: set MODEL_FEED_BASE_URL (or --base-url) to the service's base URL, e.g. export MODEL_FEED_BASE_URL=https://<service host>.",
    );
  });

  it('a key in literal quotes, with or without spaces inside, is reported as quoted, not as wrong', () => {
    const shell =
      'MODEL_FEED_API_KEY is wrapped in literal quotes, which the service would take as part of the key. Set the key alone: export MODEL_FEED_API_KEY=<your key>, with no quotes inside the value.';
    for (const key of [
      '"mfsk_abcdef123456"',
      "' mfsk_abcdef123456 '",
      '\u201cmfsk_abcdef123456\u201d',
      '"mfsk_x',
    ]) {
      const config = resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: key }, [], { audience: 'shell' });
      expect(config.setupError?.message, key).toBe(shell);
      expect(config.apiKey).toBeUndefined();
    }
    expect(
      resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: "'mfsk_abcdef123456'" }).setupError?.message,
    ).toBe(
      'MODEL_FEED_API_KEY is wrapped in literal quotes, which the service would take as part of the key. Set the key alone: "MODEL_FEED_API_KEY": "<your key>" in the client\'s "env", the JSON quotes only.',
    );
  });

  it('invisible characters around the key are reported as such; plain surrounding spaces are trimmed', () => {
    expect(
      resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: '\u200bmfsk_abcdef123456' }).setupError?.message,
    ).toBe(
      'MODEL_FEED_API_KEY has invisible characters (zero-width spaces) around the key, which the service would take as part of it. Type or paste the key again without them.',
    );
    expect(resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: '  mfsk_abcdef123456\n' }).apiKey).toBe(
      'mfsk_abcdef123456',
    );
  });

  it('spaces around a good key: trimmed, the key works, and one warning says so without the key', () => {
    const padded = { ...BASE_URL, MODEL_FEED_API_KEY: '  mfsk_abcdef123456\n' };
    const client = resolveConfig({}, padded);
    expect(client.setupError).toBeUndefined();
    expect(client.warnings).toEqual([
      'MODEL_FEED_API_KEY had spaces or line breaks around the key; they were removed and the key is used without them. Set it as "MODEL_FEED_API_KEY": "<your key>" in the MCP client\'s "env", with nothing around the key.',
    ]);
    expect(resolveConfig({}, padded, [], { audience: 'shell' }).warnings).toEqual([
      'MODEL_FEED_API_KEY had spaces or line breaks around the key; they were removed and the key is used without them. Set it as export MODEL_FEED_API_KEY=<your key> with nothing around the key.',
    ]);
    // A key as pasted, and a key that is refused for another reason, get no such warning.
    expect(resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: 'mfsk_abcdef123456' }).warnings).toEqual([]);
    expect(resolveConfig({}, { ...BASE_URL, MODEL_FEED_API_KEY: ' "mfsk_abcdef123456" ' }).warnings).toEqual(
      [],
    );
  });
});

describe('error texts', () => {
  it('a 401 gives its advice once and ends without ".".', () => {
    const sandboxSays =
      'API key not accepted: it is wrong or has been revoked. Create a new key on the account screen (it is shown once).';
    const text = describeError(new AuthError(401, sandboxSays, request, undefined));
    expect(text).toBe(
      `The service rejected the API key (HTTP 401): it is missing, wrong or revoked. The service said: "${sandboxSays}" Then set MODEL_FEED_API_KEY to the new key.`,
    );
    expect(text).not.toContain('.".');
    expect(text.match(/new key/gi)).toHaveLength(2);
    expect(describeError(new AuthError(401, 'Unauthorized', request, undefined))).toBe(
      'The service rejected the API key (HTTP 401): it is missing, wrong or revoked. The service said: "Unauthorized". Create a new key on the service\'s account screen (it is shown once) and set MODEL_FEED_API_KEY to it.',
    );
    expect(describeError(new AuthError(401, undefined, request, undefined))).toBe(
      "The service rejected the API key (HTTP 401): it is missing, wrong or revoked. Create a new key on the service's account screen (it is shown once) and set MODEL_FEED_API_KEY to it.",
    );
    expect(describeError(new ServerError(500, 'Down.', request, undefined))).not.toContain('.".');
  });

  it("a private CA: the server's env for a client, export for a shell", () => {
    const error = new NetworkError(
      'SELF_SIGNED_CERT_IN_CHAIN',
      'self-signed certificate in certificate chain',
      request,
    );
    expect(describeError(error)).toContain(
      "set NODE_EXTRA_CA_CERTS to that CA certificate (PEM file) in the server's env;",
    );
    expect(describeError(error, 'shell')).toContain(
      'set NODE_EXTRA_CA_CERTS to that CA certificate (PEM file) in this shell (export NODE_EXTRA_CA_CERTS=/path/to/ca.pem);',
    );
  });
});
