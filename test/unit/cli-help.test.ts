/**
 * Each command's help lists only the flags it takes, and a flag it does not take is refused with a
 * message naming the command and what it takes, wherever it was typed.
 */
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';

interface Parsed {
  stdout: string;
  stderr: string;
  error: unknown;
}

/** Parses argv with the real program; only for argv that stop before any action runs. */
async function parse(argv: string[], env: Record<string, string> = {}): Promise<Parsed> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env };
  let error: unknown;
  try {
    await buildProgram(io, argv, () => {}).parseAsync(argv, { from: 'user' });
  } catch (e) {
    error = e;
  }
  return { stdout, stderr, error };
}

/** The long flags under each heading of a help text: `Options:`, `Settings:`. */
function flagsByHeading(help: string): Record<string, string[]> {
  const sections: Record<string, string[]> = {};
  let heading = '';
  for (const line of help.split('\n')) {
    const title = /^(\w[\w ]*):$/.exec(line);
    if (title) heading = title[1] ?? '';
    const flag = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line);
    if (flag && heading) sections[heading] = [...(sections[heading] ?? []), flag[1] ?? ''];
  }
  return sections;
}

const SERVICE = [
  '--base-url',
  '--timeout',
  '--cache-ttl',
  '--log-level',
  '--log-format',
  '--proxy',
  '--no-disk-cache',
  '--stale-max-age',
  '--sandbox',
  '--source',
  '--refresh',
];
const ALL = [...SERVICE.slice(0, 5), '--watch-interval', ...SERVICE.slice(5)];
/** What doctor reads: the service's settings but the poll interval and the stale-answer age it takes unlisted. */
const DOCTOR = SERVICE.filter((flag) => flag !== '--stale-max-age');
const SETUP = ['--base-url', '--timeout', '--log-level', '--log-format', '--proxy', '--source'];
const EVERY = ['--version', '--help'];

/**
 * Per command: its own flags and the settings it reads. `exact` where no other change in flight adds
 * flags of its own (watch and sandbox gain some): there every own flag must still be listed, and
 * no setting or server flag among them.
 */
const COMMANDS: Array<{ path: string[]; own: string[]; settings: string[]; exact: boolean }> = [
  { path: [], own: ['--http', '--host'], settings: ALL, exact: true },
  { path: ['call'], own: [], settings: SERVICE, exact: true },
  {
    path: ['call', 'list_model_changes'],
    own: ['--since', '--type', '--model', '--limit', '--json'],
    settings: SERVICE,
    exact: true,
  },
  { path: ['call', 'get_model'], own: ['--id', '--json'], settings: SERVICE, exact: true },
  {
    path: ['call', 'search_models'],
    own: ['--vendor', '--max-input-price', '--min-context', '--limit', '--json'],
    settings: SERVICE,
    exact: true,
  },
  {
    path: ['watch'],
    own: [
      '--type',
      '--model',
      '--since',
      '--state',
      '--interval',
      '--once',
      '--uses',
      '--jsonl',
      '--webhook',
    ],
    settings: SERVICE,
    exact: false,
  },
  {
    path: ['check'],
    own: [
      '--format',
      '--fail-on',
      '--since',
      '--max-file-size',
      '--baseline',
      '--write-baseline',
      '--allow-unread',
      '--suggest',
    ],
    settings: SERVICE,
    exact: true,
  },
  { path: ['doctor'], own: ['--json'], settings: DOCTOR, exact: true },
  { path: ['setup'], own: ['--client', '--yes', '--print', '--remove'], settings: SETUP, exact: true },
  { path: ['sandbox'], own: ['--port', '--host', '--live'], settings: [], exact: false },
];

describe('help: each command lists the flags it takes, and no other', () => {
  it.each(COMMANDS.map((c) => ({ ...c, name: ['model-feed-mcp', ...c.path].join(' ') })))(
    '$name --help',
    async ({ path, own, settings, exact }) => {
      const out = await parse([...path, '--help']);
      expect((out.error as CommanderError).exitCode).toBe(0);
      const sections = flagsByHeading(out.stdout);
      // The settings it reads, in their own section; no "Global Options" of the program's.
      expect(sections.Settings ?? []).toEqual(settings);
      expect(out.stdout).not.toContain('Global Options');
      if (exact) {
        expect([...(sections.Options ?? [])].sort()).toEqual([...own, ...EVERY].sort());
      } else {
        expect(sections.Options).toEqual(expect.arrayContaining([...own, ...EVERY]));
      }
      const notOwn = [...ALL, '--http', '--host'].filter((f) => !own.includes(f));
      for (const flag of notOwn) expect(sections.Options ?? [], flag).not.toContain(flag);
      for (const flag of ALL.filter((f) => !settings.includes(f))) {
        expect(out.stdout, `${path.join(' ')} --help lists ${flag}`).not.toMatch(
          new RegExp(`^ {2}${flag}\\b`, 'm'),
        );
      }
    },
  );

  it('setup and call <tool> list none of --http, --host, --sandbox, --watch-interval (the issue)', async () => {
    for (const path of [['setup'], ['call', 'get_model']]) {
      const { stdout } = await parse([...path, '--help']);
      for (const flag of ['--http', '--host', '--watch-interval']) {
        expect(stdout, `${path.join(' ')}: ${flag}`).not.toMatch(new RegExp(`^ {2}${flag} `, 'm'));
      }
    }
    expect((await parse(['setup', '--help'])).stdout).not.toMatch(/^ {2}--sandbox /m);
  });
});

describe('a flag the command does not take is refused, naming the command and what it takes', () => {
  const setupTakes =
    'setup takes --client, --yes, --print and --remove, and the settings --base-url, --timeout, --log-level, --log-format, --proxy and --source.';

  it('after the command name, as an unknown option of that command, with exit code 2', async () => {
    const out = await parse(['setup', '--watch-interval', '5']);
    expect(out.error).toBeInstanceOf(CommanderError);
    expect((out.error as CommanderError).exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      "error: unknown option '--watch-interval' for setup: --watch-interval is a setting of the server (model-feed-mcp).\n" +
        `${setupTakes}\n` +
        '(run model-feed-mcp setup --help for usage)\n',
    );
  });

  it('before the command name, where the program reads it: the same message', async () => {
    const after = await parse(['setup', '--sandbox']);
    const before = await parse(['--sandbox', 'setup']);
    expect(before.stderr).toBe(after.stderr);
    expect(after.stderr.split('\n').slice(0, 2)).toEqual([
      "error: unknown option '--sandbox' for setup: setup configures clients for the real service and does not take --sandbox; to try the tools on sample data, run `model-feed-mcp call search_models --sandbox`.",
      setupTakes,
    ]);
  });

  it("the server's --http and --host, for a command that opens no port", async () => {
    const out = await parse(['call', 'get_model', '--id', 'openai/gpt-4o', '--http', '8765']);
    expect(out.stderr.split('\n').slice(0, 2)).toEqual([
      "error: unknown option '--http' for call get_model: --http is an option of the server (model-feed-mcp).",
      'call get_model takes --id and --json, and the settings --base-url, --timeout, --cache-ttl, --log-level, --log-format, --proxy, --no-disk-cache, --stale-max-age, --sandbox, --source and --refresh.',
    ]);
    const before = await parse(['--host', '0.0.0.0', 'doctor']);
    expect(before.stderr.split('\n')[0]).toBe(
      "error: unknown option '--host' for doctor: --host is an option of the server (model-feed-mcp) and sandbox.",
    );
  });

  it('echoes the flag of --flag=value, never the value (it may be a key in the wrong flag)', async () => {
    const out = await parse(['call', 'search_models', '--key=mfsk_live_0123456789abcdef']);
    expect(out.stderr.split('\n')[0]).toBe("error: unknown option '--key' for call search_models.");
    expect(out.stderr).not.toContain('mfsk_live');
  });
});

describe('help [command…], and a command name mistyped', () => {
  /** Runs argv to its end, as the command line does: what it printed and the exit code it chose. */
  async function run(argv: string[]): Promise<Parsed & { exitCode: number | undefined }> {
    let exitCode: number | undefined;
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env: {} };
    let error: unknown;
    try {
      await buildProgram(io, argv, (code) => (exitCode = code)).parseAsync(argv, { from: 'user' });
    } catch (e) {
      error = e;
      exitCode = (e as CommanderError).exitCode;
    }
    return { stdout, stderr, error, exitCode };
  }

  it.each([
    [['help'], ['--help']],
    [
      ['help', 'watch'],
      ['watch', '--help'],
    ],
    [
      ['help', 'call'],
      ['call', '--help'],
    ],
    [
      ['help', 'call', 'get_model'],
      ['call', 'get_model', '--help'],
    ],
  ])('%j prints what %j prints, and exits 0', async (asked, flag) => {
    const help = await run(asked);
    const expected = await parse(flag);
    expect(help.exitCode).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toBe(expected.stdout);
    expect(help.stdout).toMatch(/^Usage: model-feed-mcp/);
  });

  it('a mistyped command is an unknown command with the one meant, not "too many arguments"', async () => {
    const out = await run(['wach', '--interval', '5']);
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.split('\n')[0]).toBe(
      "error: unknown command 'wach' for model-feed-mcp. Did you mean watch? The commands are call, watch, check, doctor, setup, sandbox and help.",
    );
    expect((await run(['chek', '.'])).stderr).toContain('Did you mean check?');
  });

  it('help for a command or tool there is not: exit 2, naming it, escape sequences taken out', async () => {
    const none = await run(['help', 'nope\u001b[31m']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe(
      "error: unknown command 'nope' for model-feed-mcp. The commands are call, watch, check, doctor, setup, sandbox and help.",
    );
    const leaf = await run(['help', 'watch', 'extra']);
    expect(leaf.exitCode).toBe(2);
    expect(leaf.stderr.split('\n')[0]).toBe("error: watch has no commands of its own: 'extra' is not one.");
    const tool = await run(['help', 'call', 'get_mdl']);
    expect(tool.exitCode).toBe(2);
    expect(tool.stderr.split('\n')[0]).toBe(
      "error: unknown tool 'get_mdl'. Did you mean get_model? The tools are list_model_changes, get_model, search_models; `model-feed-mcp call <tool> --help` lists a tool's flags.",
    );
  });
});

describe('what a refusal quotes back of the typed word', () => {
  it('a long flag name is a name, shown whole with the flag meant, not hidden as a key', async () => {
    const { stderr } = await parse(['watch', '--stdout-format-json']);
    expect(stderr).toContain("unknown option '--stdout-format-json' for watch");
    expect(stderr).not.toContain('[redacted]');
  });

  it('the configured key is hidden wherever the typed word is quoted, however short', async () => {
    const env = { MODEL_FEED_API_KEY: 'shortkey99' };
    for (const argv of [
      ['shortkey99'],
      ['call', 'shortkey99'],
      ['doctor', '--shortkey99'],
      ['help', 'watch', 'shortkey99'],
    ]) {
      const { stderr } = await parse(argv, env);
      expect(stderr, argv.join(' ')).toMatch(/error: /);
      expect(stderr, argv.join(' ')).not.toContain('shortkey99');
    }
  });
});
