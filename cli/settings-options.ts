/**
 * The commands' setting flags, derived from the schema (lib/settings/schema.ts): one option per flag with its
 * doc line, variable and default, and the run's settings read back from the flags over the environment.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { checkSettings } from '../lib/settings/read.ts';
import { type CommandName, SETTINGS, type Setting } from '../lib/settings/schema.ts';
import type { RunSettings } from '../measure/core/target.ts';
import { sslSettings } from './ssl-options.ts';

/** Commander's key of a flag: --step-duration → stepDuration. */
export function flagKey(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The settings whose flags a command takes, in the schema's order. */
export function commandSettings(command: CommandName): Setting[] {
  return SETTINGS.filter((s) => s.commands.includes(command));
}

/** One flag's help: the doc line, the variable it sets and the default. */
export function flagHelp(setting: Setting, alias = false): string {
  if (alias) return `the same as ${setting.flags[0]} (${setting.env})`;
  // A runtime's choice shows commander's default instead: the variable's value when set.
  const shown = setting.default && !(setting.scope === 'tool' && setting.kind.values);
  return `${setting.doc} (${setting.env}${shown ? `; default ${setting.default}` : ''})`;
}

function option(setting: Setting, flag: string, alias: boolean): Option {
  const { placeholder, values } = setting.kind;
  const opt = new Option(placeholder ? `${flag} <${placeholder}>` : flag, flagHelp(setting, alias));
  if (values) opt.choices(values);
  // The runtime's flag defaults to its variable, so --help shows which one a run would take.
  if (setting.scope === 'tool' && values) opt.default(process.env[setting.env] || values[0]);
  return opt;
}

/** Adds the schema's flags of `name` to a command (aliases after their setting). */
export function addSettingOptions(command: Command, name: CommandName): Command {
  for (const setting of commandSettings(name))
    setting.flags.forEach((flag, i) => {
      command.addOption(option(setting, flag, i > 0));
    });
  return command;
}

/**
 * A run's settings: the process's values for the settings a run hands over (scenario and bench scope, not
 * those the tool sets), then
 * the flags; every bad one reported at once, one line each.
 */
export function runSettings(flags: Record<string, unknown>, processEnv: NodeJS.ProcessEnv): RunSettings {
  const env: Record<string, string> = {};
  const handed = SETTINGS.filter((s) => s.scope !== 'tool' && !s.byTool);
  for (const { env: name } of handed) {
    const value = processEnv[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  for (const setting of handed)
    for (const flag of setting.flags) {
      const value = flags[flagKey(flag)];
      if (value !== undefined && value !== '') env[setting.env] = String(value);
    }
  // Hints name the flag the user typed (--url), not the variable it set (scenarios/kit/endpoints.ts).
  if (flags.url !== undefined && flags.url !== '') env.TRITON_URL_FLAG = '--url';
  if (flags.grpcUrl !== undefined && flags.grpcUrl !== '') env.TRITON_GRPC_URL_FLAG = '--grpc-url';
  checkSettings(env, handed);
  // k6's open() reads a relative path from the script's folder: hand files over as absolute paths.
  for (const name of ['SCHEDULE', 'REQUEST_INTERVALS']) if (env[name]) env[name] = resolve(env[name]);
  return { ...env, ...sslSettings(flags, env) };
}
