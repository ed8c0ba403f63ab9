/**
 * The parts of `k6-triton run` that read k6's surface table (packages/runtime/src/options/k6-surface.ts):
 * the flags k6 has and the Node runtime refuses, K6_* variables read as k6 reads them, k6's JSON config file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { K6_SURFACE, type LogSettings, parseStage, refusedFlag, type SurfaceRow } from '@k6-triton/runtime';

/** Go's strconv.ParseBool, as k6 reads a boolean K6_* variable (`false` means false); undefined when unset. */
export function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(
    `env var '${name}' is not a valid boolean value: strconv.ParseBool: parsing "${value}": invalid syntax`,
  );
}

/** What the K6_* variables set beyond commander's `.env()` flags, by k6's option names. */
export interface EnvOptions {
  options: Record<string, unknown>;
  tags: Record<string, string>;
  insecureSkipTLSVerify?: boolean;
  noThresholds?: boolean;
  includeSystemEnvVars?: boolean;
  noColor?: boolean;
  linger?: boolean;
}

/** Keeps the defined entries of `o`. */
export function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const ENV_BOOL_OPTIONS = {
  noSetup: 'K6_NO_SETUP',
  noTeardown: 'K6_NO_TEARDOWN',
  noConnectionReuse: 'K6_NO_CONNECTION_REUSE',
  noVUConnectionReuse: 'K6_NO_VU_CONNECTION_REUSE',
  throw: 'K6_THROW',
  discardResponseBodies: 'K6_DISCARD_RESPONSE_BODIES',
  noCookiesReset: 'K6_NO_COOKIES_RESET',
  paused: 'K6_PAUSED',
} as const;

/** The options of K6_* variables commander does not read (booleans as Go reads them, lists, stages). */
export function envOptions(env: NodeJS.ProcessEnv): EnvOptions {
  const options: Record<string, unknown> = {};
  for (const [option, name] of Object.entries(ENV_BOOL_OPTIONS)) {
    const v = envBool(env, name);
    if (v !== undefined) options[option] = v;
  }
  if (env['K6_STAGES'] !== undefined) {
    try {
      options['stages'] = env['K6_STAGES'].split(',').map((s, i) => parseStage(s.trim(), i));
    } catch (err) {
      throw new EnvConfigError(`envconfig.Process: assigning K6_STAGES to Stages: ${(err as Error).message}`);
    }
  }
  for (const [option, name] of [
    ['blacklistIPs', 'K6_BLACKLIST_IPS'],
    ['blockHostnames', 'K6_BLOCK_HOSTNAMES'],
  ] as const) {
    if (env[name] !== undefined) options[option] = env[name].split(',').map((t) => t.trim());
  }
  if (env['K6_SYSTEM_TAGS'] !== undefined)
    options['systemTags'] = env['K6_SYSTEM_TAGS'].split(',').map((t) => t.trim());
  for (const [option, name] of [
    ['setupTimeout', 'K6_SETUP_TIMEOUT'],
    ['teardownTimeout', 'K6_TEARDOWN_TIMEOUT'],
  ] as const) {
    if (env[name] !== undefined) options[option] = env[name];
  }
  const tags: Record<string, string> = {};
  for (const pair of (env['K6_TAGS'] ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new EnvConfigError(
        `envconfig.Process: assigning K6_TAGS to RunTags: invalid map item: "${pair}"`,
      );
    tags[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return {
    options,
    tags,
    insecureSkipTLSVerify: envBool(env, 'K6_INSECURE_SKIP_TLS_VERIFY'),
    noThresholds: envBool(env, 'K6_NO_THRESHOLDS'),
    includeSystemEnvVars: envBool(env, 'K6_INCLUDE_SYSTEM_ENV_VARS'),
    // k6 reads neither as a boolean: a non-empty K6_NO_COLOR ("false" too) or a NO_COLOR of any value.
    noColor: (env['K6_NO_COLOR'] ?? '') !== '' || env['NO_COLOR'] !== undefined,
    linger: envBool(env, 'K6_LINGER'),
  };
}

/** A K6_* variable with a value k6 cannot read as its option: k6 exits 104 for it. */
export class EnvConfigError extends Error {}

/** `-s/--stage`'s parser: validates `[duration]:[target]` (k6's message), collects the values. */
export function stageFlag(value: string, previous: string[]): string[] {
  try {
    parseStage(value, previous.length);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return [...previous, value];
}

/** `--summary-mode`'s parser: k6 v2's modes, with k6's words for any other. */
export function summaryMode(value: string): 'compact' | 'full' | 'disabled' {
  if (value === 'compact' || value === 'full' || value === 'disabled') return value;
  throw new InvalidArgumentError('invalid summary mode');
}

const refusedAttrs = new WeakMap<Command, Array<{ attr: string; row: SurfaceRow }>>();

/** Adds k6's flags that the table refuses (hidden from help), so that `flagRefusals` can name them. */
export function addRefusedFlags(cmd: Command): void {
  const rows: Array<{ attr: string; row: SurfaceRow }> = [];
  const known = new Set(cmd.options.flatMap((o) => [o.long, o.short]));
  for (const row of K6_SURFACE) {
    if (!row.flag) continue;
    if (known.has(row.flag)) {
      // Honoured for some values only: read as registered, refused by value.
      if (row.honouredValues) {
        const opt = cmd.options.find((o) => o.long === row.flag)!;
        rows.push({ attr: opt.attributeName(), row });
      }
      continue;
    }
    const arg = row.value === 'required' ? ' <value>' : row.value === 'optional' ? ' [value]' : '';
    const opt = new Option(`${row.short ? `${row.short}, ` : ''}${row.flag}${arg}`).hideHelp();
    cmd.addOption(opt);
    rows.push({ attr: opt.attributeName(), row });
  }
  refusedAttrs.set(cmd, rows);
}

/** The refusal lines of the refused flags given on the command line. */
export function flagRefusals(cmd: Command): string[] {
  const lines: string[] = [];
  for (const { attr, row } of refusedAttrs.get(cmd) ?? []) {
    if (cmd.getOptionValueSource(attr) !== 'cli') continue;
    // A flag without a value is on when given (commander reads `--no-x` as x=false).
    const line = refusedFlag(row, row.value === 'none' ? true : cmd.getOptionValue(attr));
    if (line) lines.push(line);
  }
  return lines;
}

/** What k6's JSON config file gives: options (below the script's) and outputs. */
export interface ConfigFile {
  options: Record<string, unknown>;
  out: string[];
  /** k6's `linger` key (--linger). */
  linger?: boolean;
}

/** k6's default config file: ~/.config/k6/config.json (XDG_CONFIG_HOME when set). */
function defaultConfigPath(): string {
  return join(process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), 'k6', 'config.json');
}

/** Reads k6's JSON config file (`path`, else the default one when it exists). */
export function readConfig(path: string | undefined): ConfigFile {
  const file = path ?? defaultConfigPath();
  if (path === undefined && !existsSync(file)) return { options: {}, out: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`couldn't read the config file ${file}: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`the config file ${file} must hold a JSON object`);
  // The config file's own keys beside the options: outputs, and k6's usage report (none is sent here).
  const {
    out,
    noUsageReport: _inert,
    collectors: _collectors,
    linger,
    ...options
  } = parsed as Record<string, unknown>;
  const outs = out === undefined || out === null ? [] : Array.isArray(out) ? out.map(String) : [String(out)];
  return { options, out: outs, ...(typeof linger === 'boolean' ? { linger } : {}) };
}

/** `--log-output`'s parser: k6's stderr, stdout, none and file=PATH; loki is refused naming it; else k6's words. */
export function logOutput(value: string): LogSettings['output'] {
  if (value === 'stderr' || value === 'stdout' || value === 'none') return { to: value };
  const [kind = '', rest] = [value.split('=')[0], value.slice(value.indexOf('=') + 1)];
  if (kind === 'file') {
    if (!value.includes('='))
      throw new InvalidArgumentError('error while parsing logfile configuration key `file` with no value');
    return { to: 'file', path: rest!.split(',')[0]! };
  }
  if (kind === 'loki')
    throw new InvalidArgumentError(
      `log output "${value}" is not supported by the Node runtime; use file=PATH, or run with k6`,
    );
  throw new InvalidArgumentError(`unsupported log output '${value}'`);
}
