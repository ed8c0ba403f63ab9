/**
 * k6's secret sources, as `--secret-source` configures them: `file=path` (or `file=filename=path`) reads
 * KEY=VALUE lines, `mock=k1=v1,k2=v2` holds its values inline; `name=…` names a source and `default` makes
 * it the one `secrets.get()` reads (a single source is the default). Values read are redacted from logs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactFromLogs } from '../log.ts';
import { UrlSecretSource, urlSourceConfig } from './secret-url.ts';

/** What a secret source lookup rejects with: a Go error's text (k6 rejects with its error, not an Error). */
export class SecretError {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Source = Map<string, string> | UrlSecretSource;

/** Parses KEY=VALUE pairs (lines of a file, or a mock's comma list); k6's message for one without "=". */
function pairs(items: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq < 0) throw new Error(`parsing "${item}", needs =`);
    out.set(item.slice(0, eq), item.slice(eq + 1));
  }
  return out;
}

function fileSource(config: string, cwd: string): Map<string, string> {
  let filename = '';
  for (const kv of config.split(',')) {
    const eq = kv.indexOf('=');
    if (eq < 0) filename = kv;
    else if (kv.slice(0, eq) === 'filename') filename = kv.slice(eq + 1);
    else throw new Error(`unknown configuration key for file secret source "${kv.slice(0, eq)}"`);
  }
  let text: string;
  try {
    text = readFileSync(resolve(cwd, filename), 'utf8');
  } catch {
    throw new Error(`open ${filename}: no such file or directory`);
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return pairs(lines.map((l) => l.replace(/\r$/, '')));
}

const BUILDERS: Record<string, (config: string, cwd: string) => Source> = {
  file: fileSource,
  mock: (config) => pairs(config.split(',')),
  url: (config, cwd) => new UrlSecretSource(urlSourceConfig(config, cwd, process.env)),
};

/** The test's secret sources by name ("default" among them when one is), read by k6/secrets. */
export class SecretSources {
  constructor(readonly sources: Map<string, Source>) {}

  /** The value of `key` in the source `name` (a promise from a url source); rejects with k6's texts. */
  get(name: string, key: string): string | Promise<string> {
    if (this.sources.size === 0) throw new SecretError('no secret sources are configured');
    const source = this.sources.get(name);
    if (!source) throw new SecretError(`no secret source with name "${name}" is configured`);
    if (source instanceof UrlSecretSource)
      return source.get(key).then(
        (value) => {
          redactFromLogs(value);
          return value;
        },
        (err: Error) => {
          throw new SecretError(err.message);
        },
      );
    const value = source.get(key);
    if (value === undefined) throw new SecretError('no value');
    redactFromLogs(value);
    return value;
  }
}

/** Builds the sources of `--secret-source` values (relative paths from `cwd`); throws k6's one-line errors. */
export function secretSources(lines: string[], cwd = process.cwd()): SecretSources {
  const result = new Map<string, Source>();
  for (const line of lines) {
    let type = line;
    let config = '';
    const eq = line.indexOf('=');
    if (eq >= 0) {
      type = line.slice(0, eq);
      config = line.slice(eq + 1);
    } else if (line.trim() === '') throw new Error(`couldn't parse secret source configuration "${line}"`);
    const build = BUILDERS[type];
    if (!build) {
      if (type === 'cloud')
        throw new Error(
          `secret source "${type}" is not supported by the Node runtime; use file or mock, or run with k6`,
        );
      throw new Error(`no secret source for type "${type}" for configuration "${line}"`);
    }
    let name = '';
    let isDefault = false;
    const rest: string[] = [];
    for (const kv of config.split(',')) {
      if (kv === 'default') isDefault = true;
      else if (kv.startsWith('name=')) name = kv.slice('name='.length);
      else rest.push(kv);
    }
    name ||= type;
    const source = build(rest.join(','), cwd);
    if (result.has(name))
      throw new Error(`secret source for name "${type}" already registered before configuration "${line}"`);
    result.set(name, source);
    if (isDefault) {
      if (result.has('default'))
        throw new Error(`can't have two secret sources that are default ones, second one was "${config}"`);
      result.set('default', source);
    }
  }
  if (result.size === 1) result.set('default', [...result.values()][0]!);
  return new SecretSources(result);
}
