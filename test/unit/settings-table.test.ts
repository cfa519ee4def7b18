/**
 * The settings table is the one place a setting is declared: the README's settings table, the root
 * help's variables and each command's flags must all say what it says.
 */

import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { type COMMANDS, SETTINGS, type Setting } from '../../src/config/settings-table.js';
import { ENV } from '../../src/config.js';
import { sections } from '../registry/markdown.js';
import { readText } from '../registry/support.js';

const settings = Object.entries(SETTINGS as Record<string, Setting>);
const readme = readText('README.md');
const settingsSection = sections(readme, 3).find((section) => section.title === 'Settings');
/** The README's settings table: each row's cells, without the header and its rule. */
const rows = (settingsSection?.body ?? '')
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .slice(2)
  .map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
const flagName = (setting: Setting) => setting.flag?.split(' ')[0];

describe('the settings table', () => {
  it("finds the README's settings table", () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it('declares every variable the configuration reads', () => {
    const declared = settings.map(([, setting]) => setting.env).filter(Boolean);
    expect(declared.sort()).toEqual(Object.values(ENV).sort());
  });

  it.each(settings)(
    '%s has a row in the README with its variable, its flag and its default',
    (_name, setting) => {
      const row = rows.find((cells) =>
        setting.env ? cells[1]?.includes(`\`${setting.env}\``) : cells[2]?.includes(`\`${flagName(setting)}`),
      );
      expect(row, `a README settings row for ${setting.env ?? setting.flag}`).toBeDefined();
      if (setting.flag) expect(row?.[2]).toContain(flagName(setting));
      if (setting.env) expect(row?.[3]?.replaceAll('`', '')).toContain(setting.shownDefault);
    },
  );

  it('has no README row for a variable it does not declare', () => {
    const declared = new Set(settings.map(([, setting]) => setting.env));
    const named = rows.flatMap((cells) =>
      [...(cells[1] ?? '').matchAll(/`(MODEL_FEED_\w+)`/g)].map((m) => m[1]),
    );
    expect(named.filter((env) => !declared.has(env))).toEqual([]);
  });

  it('gives each command exactly the flags it reads, and lists them in its help', () => {
    const program = buildProgram({ stdout: () => {}, stderr: () => {}, env: {} }, [], () => {});
    for (const command of [program, ...program.commands]) {
      const name = command.name() as (typeof COMMANDS)[number];
      const taken = new Set(command.options.map((option) => option.long));
      const listed = new Set(command.options.filter((option) => !option.hidden).map((option) => option.long));
      for (const [, setting] of settings) {
        const flag = flagName(setting);
        if (!flag) continue;
        const reads = setting.readBy.includes(name);
        const takes = reads || setting.takenBy?.includes(name) === true;
        expect(taken.has(flag), `${name} takes ${flag}`).toBe(takes);
        expect(listed.has(flag), `${name} lists ${flag}`).toBe(reads);
      }
    }
  });

  it('puts every variable in the root help, with its default', () => {
    const program = buildProgram({ stdout: () => {}, stderr: () => {}, env: {} }, [], () => {});
    let help = '';
    program.configureOutput({ writeOut: (text) => (help += text) });
    program.outputHelp();
    const flat = help.replace(/\s+/g, ' ');
    for (const [, setting] of settings) {
      if (!setting.env) continue;
      expect(flat).toContain(setting.env);
      expect(flat).toContain(setting.shownDefault);
    }
  });
});
