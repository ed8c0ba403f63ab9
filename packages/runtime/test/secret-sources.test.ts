/** --secret-source parsing (k6's file and mock sources, names, default) and lookups with k6's texts. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretSources } from '../src/modules/secret-sources.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-secrets-'));
writeFileSync(join(dir, 'a.env'), 'user=ada\r\ntoken=x=y\n');

const lookup = (f: () => string | Promise<string>): string => {
  try {
    return f() as string;
  } catch (err) {
    return `rejected: ${String(err)}`;
  }
};

describe('secretSources', () => {
  it('makes a single source the default, reading KEY=VALUE lines relative to cwd', () => {
    const s = secretSources(['file=a.env'], dir);
    expect(s.get('default', 'user')).toBe('ada');
    expect(s.get('file', 'token')).toBe('x=y');
    expect(lookup(() => s.get('default', 'nope'))).toBe('rejected: no value');
  });

  it('names sources and picks the one marked default', () => {
    const s = secretSources(
      [`file=filename=${join(dir, 'a.env')},name=disk`, 'mock=name=m,default,k=v'],
      dir,
    );
    expect(s.get('disk', 'user')).toBe('ada');
    expect(s.get('default', 'k')).toBe('v');
    expect(lookup(() => s.get('other', 'k'))).toBe(
      'rejected: no secret source with name "other" is configured',
    );
  });

  it('rejects every lookup when no source is configured', () => {
    expect(lookup(() => secretSources([]).get('default', 'k'))).toBe(
      'rejected: no secret sources are configured',
    );
  });

  it.each([
    ['env', 'no secret source for type "env" for configuration "env"'],
    ['mock=novalue', 'parsing "novalue", needs ='],
    ['file=missing.env', 'open missing.env: no such file or directory'],
    ['file=a.env,colour=red', 'unknown configuration key for file secret source "colour"'],
    ['url=', 'missing or invalid config: urlTemplate is required'],
    [
      'url=urlTemplate=http://h/{key},bogus=1',
      'missing or invalid config: unknown configuration key: "bogus"',
    ],
    ['url=urlTemplate=http://h/x', 'missing or invalid config: urlTemplate must contain {key} placeholder'],
    [
      'cloud=x',
      'secret source "cloud" is not supported by the Node runtime; use file or mock, or run with k6',
    ],
    ['mock=default,a=1', ''],
  ])('--secret-source %s', (line, message) => {
    const lines = message === '' ? [line, 'mock=name=two,default,b=2'] : [line];
    const expected =
      message ||
      'can\'t have two secret sources that are default ones, second one was "name=two,default,b=2"';
    expect(() => secretSources(lines, dir)).toThrow(expected);
  });
});
