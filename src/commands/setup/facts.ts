/**
 * What setup learns from the machine and the command line: the flags, the facts gathered at the
 * edge (or faked by tests), and the clients it could configure.
 */

import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ConfigFlags } from '../../config.js';
import type { CliIo } from '../../io.js';
import { type RunProgram, runProgram, spawnableClaude } from '../../setup/clients/claude-cli.js';
import { CLIENTS, type ClientDef } from '../../setup/clients/index.js';
import type { FormatLib } from '../../setup/entry.js';
import { findOnPath } from '../../setup/launch.js';
import type { TtyInput } from '../../setup/prompt.js';
import { type StopSignals, watchStopSignals } from '../../setup/stop-signals.js';
import type { PlatformFacts } from '../../store/paths.js';

export interface SetupFlags extends ConfigFlags {
  /** `--client`, repeatable, each value possibly a comma list. */
  client?: string[];
  yes?: boolean;
  print?: boolean;
  remove?: boolean;
}

/** Everything setup learns from the machine, gathered at the edge (hostFacts) or faked by tests. */
export interface SetupFacts {
  platform: NodeJS.Platform;
  home: string;
  /** The running script (process.argv[1]), symlinks resolved. */
  script: string | undefined;
  nodePath: string;
  stdin: TtyInput;
  now(): Date;
  isFile(path: string): boolean;
  exists(path: string): boolean;
  runProgram: RunProgram;
  /** The parsers' chunk, loaded on first use. */
  loadFormats(): Promise<FormatLib>;
  /** Handlers for SIGINT, SIGTERM and SIGHUP while setup runs. @default none (signals never come) */
  watchStopSignals?(): StopSignals;
}

/** The real machine. HOME (USERPROFILE on Windows) comes from the environment the CLI was given. */
export function hostFacts(io: CliIo): SetupFacts {
  const script = process.argv[1];
  let resolved = script;
  try {
    resolved = script === undefined ? undefined : realpathSync(script);
  } catch {
    // Keep the path as given.
  }
  const home =
    (process.platform === 'win32' ? io.env.USERPROFILE : io.env.HOME)?.trim() ||
    io.env.HOME?.trim() ||
    homedir();
  return {
    platform: process.platform,
    home,
    script: resolved,
    nodePath: process.execPath,
    stdin: process.stdin,
    now: () => new Date(),
    isFile: (path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    },
    exists: existsSync,
    runProgram,
    loadFormats: () => import('../../setup/formats.js'),
    watchStopSignals: () =>
      watchStopSignals(() => {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
      }, io.stderr),
  };
}

/** One client to configure, and how: its file, or the `claude` CLI. */
export interface Target {
  client: ClientDef;
  file: string;
  /** The `claude` executable, for Claude Code when it can be run. */
  claude: string | undefined;
  detected: boolean;
}

export function findTargets(facts: SetupFacts, env: CliIo['env']): Target[] {
  const platformFacts: PlatformFacts = { env, platform: facts.platform, home: facts.home };
  const claude = spawnableClaude(findOnPath('claude', env, facts.platform, facts.isFile), facts.platform);
  return CLIENTS.map((client) => {
    const viaCli = client.id === 'claude-code' ? claude : undefined;
    return {
      client,
      file: client.file(platformFacts),
      claude: viaCli,
      detected: viaCli !== undefined || facts.exists(client.marker(platformFacts)),
    };
  });
}
