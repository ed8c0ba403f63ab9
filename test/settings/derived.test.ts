/**
 * What is derived from the settings schema agrees with it: the docs table as committed, each command's flags
 * and their --help lines, and the k8s runners' env.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { program } from '../../cli/main.ts';
import { commandSettings, flagHelp, runSettings } from '../../cli/settings-options.ts';
import { TABLE_PAGE, withSettingsTable } from '../../lib/settings/docs-table.ts';
import { COMMANDS, SETTINGS } from '../../lib/settings/schema.ts';
import { runnerEnv } from '../../measure/k8s/inputs.ts';
import { packagePath } from '../../measure/core/paths.ts';

const ALL_FLAGS = new Set(SETTINGS.flatMap((s) => s.flags));

function subcommand(name: string): Command {
  const found = program().commands.find((c) => c.name() === name);
  if (!found) throw new Error(`no command ${name}`);
  return found;
}

describe('derived from the settings schema', () => {
  it('the committed docs table is the schema’s (make docs-settings writes it)', () => {
    const page = readFileSync(packagePath(...TABLE_PAGE.split('/')), 'utf8');
    expect(withSettingsTable(page)).toBe(page);
    for (const s of SETTINGS.filter((s) => !s.byTool)) expect(page).toContain(`| \`${s.env}\` |`);
  });

  for (const name of COMMANDS)
    it(`${name}: its setting flags are the schema's for it, each with its help line`, () => {
      const command = subcommand(name);
      const settingFlags = command.options.map((o) => o.long!).filter((f) => ALL_FLAGS.has(f));
      const expected = commandSettings(name).flatMap((s) => s.flags);
      // capacity's --request-rate is a switch of its own (search the rate), not the REQUEST_RATE setting.
      const own = name === 'capacity' ? ['--request-rate'] : name === 'sweep' ? ['--concurrency'] : [];
      expect(settingFlags.filter((f) => !own.includes(f)).sort()).toEqual([...expected].sort());
      const help = command.helpInformation().replace(/\s+/g, ' ');
      for (const s of commandSettings(name)) expect(help).toContain(flagHelp(s).replace(/\s+/g, ' '));
    });

  it('flags and the environment become the run settings, flags winning, every bad one reported', () => {
    const settings = runSettings(
      { outputTokens: '100,10', stabilityPercentage: '5', warmup: '1s', tls: true },
      { OUTPUT_TOKENS: '7', BATCH: '2', RUNTIME: 'node', MIX_SLOT: '3' },
    );
    expect(settings).toMatchObject({
      OUTPUT_TOKENS: '100,10',
      STABILITY: '5',
      WARMUP_DURATION: '1s',
      TLS: 'true',
      BATCH: '2',
    });
    // The tool's own variables and those it sets for the scenario are not a run's settings.
    expect(settings).not.toHaveProperty('RUNTIME');
    expect(settings).not.toHaveProperty('MIX_SLOT');
    expect(() => runSettings({ batch: '0', warmup: '5' }, { MAX_TRIALS: 'x' })).toThrow(
      [
        'invalid BATCH="0"; expected a whole number >= 1',
        'WARMUP_DURATION="5" is invalid: a number without a unit is ambiguous; use a duration with a unit, such as WARMUP_DURATION=5s, 500ms, 1m or 1m30s',
        'invalid MAX_TRIALS="x"; expected a whole number >= 1',
      ].join('\n'),
    );
  });

  it("k8s runners get the scenario's settings only, without the mounted ones", () => {
    const env = runnerEnv(
      {
        TRITON_URL: 'http://t:8000',
        CONCURRENCY: '1,2',
        TLS: 'true',
        DATASET: 'd.jsonl',
        TRITON_URL_FLAG: '--url',
        PAYLOAD: '/p.json',
        HEADERS: 'a:b',
      },
      { MODEL: 'bert-large' },
    );
    expect(env).toEqual({ TRITON_URL: 'http://t:8000', CONCURRENCY: '1,2', MODEL: 'bert-large' });
    const scenario = new Set(SETTINGS.filter((s) => s.scope === 'scenario').map((s) => s.env));
    for (const name of Object.keys(env)) expect(scenario.has(name), name).toBe(true);
  });
});
