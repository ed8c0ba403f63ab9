/**
 * Reading settings from an environment (k6's __ENV, the process environment, or a run's settings) by the
 * schema: one parser per kind, every problem reported at once. Runs inside k6 and on Node alike.
 */
import { SETTINGS, type Setting } from './schema.ts';

/** Settings by environment name, as k6's __ENV holds them. */
export type Env = Record<string, string | undefined>;

/** The text a setting is given, undefined when unset or blank. */
export function given(env: Env, setting: Setting): string | undefined {
  const raw = env[setting.env];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

/** A setting's value parsed by its kind; undefined when unset. Throws one line naming it and the fix. */
export function read<T>(env: Env, setting: Setting<T>): T | undefined {
  const raw = given(env, setting);
  return raw === undefined ? undefined : setting.kind.parse(setting.env, raw);
}

/** A setting's value, or `fallback` when unset. */
export function readOr<T>(env: Env, setting: Setting<T>, fallback: T): T {
  return read(env, setting) ?? fallback;
}

/** Every setting set in `env` that its kind refuses: one line each, naming it and the fix (k6's Validate()). */
export function settingProblems(env: Env, settings: readonly Setting[] = SETTINGS): string[] {
  const problems: string[] = [];
  for (const setting of settings) {
    try {
      read(env, setting);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}

/** Throws one error listing every problem of the settings set in `env`, a line each; returns when none. */
export function checkSettings(env: Env, settings?: readonly Setting[]): void {
  const problems = settingProblems(env, settings);
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
