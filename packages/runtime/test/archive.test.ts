/**
 * k6's archive format (archive/tar-io.ts, archive/metadata.ts): the entries written in k6's order and
 * kinds, old archives' `scripts/`/`files/` trees read as k6 reads them, and options turned to k6's JSON
 * and back.
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import tar from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { anonymizePath } from '../src/archive/anonymize.ts';
import { k6OptionsJson, withArchiveDefaults, withoutNulls } from '../src/archive/metadata.ts';
import { type ArchiveContents, readArchive, writeArchive } from '../src/archive/tar-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-archive-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each entry of a tar file as `type name[ -> link]`. */
async function entries(path: string): Promise<string[]> {
  const out: string[] = [];
  const extract = tar.extract();
  const reading = pipeline(createReadStream(path), extract);
  for await (const e of extract) {
    for await (const _ of e);
    out.push(`${e.header.type} ${e.header.name}${e.header.linkname ? ` -> ${e.header.linkname}` : ''}`);
  }
  await reading;
  return out;
}

const sample = (): ArchiveContents => ({
  metadata: { type: 'js', filename: 'file:///w/s.js', options: {}, env: {} },
  data: Buffer.from('main'),
  files: {
    file: new Map([
      ['/w/s.js', Buffer.from('main')],
      ['/w/lib/a.js', Buffer.from('a')],
      ['/w/data.txt', Buffer.from('d')],
    ]),
    https: new Map([['/example.com/m/x.js', Buffer.from('x')]]),
  },
});

describe('archive tar', () => {
  it("writes k6's layout: metadata.json, data, each tree's folders then files, the main script a link to data", async () => {
    const out = join(dir, 'a.tar');
    await writeArchive(sample(), out);
    expect(await entries(out)).toEqual([
      'file metadata.json',
      'file data',
      'directory file',
      'directory file/w',
      'directory file/w/lib',
      'file file/w/data.txt',
      'file file/w/lib/a.js',
      'link file/w/s.js -> data',
      'directory https',
      'directory https/example.com',
      'directory https/example.com/m',
      'file https/example.com/m/x.js',
    ]);
    const back = await readArchive(out);
    expect(back.files.file.get('/w/s.js')?.toString()).toBe('main');
    expect(back.files.https.get('/example.com/m/x.js')?.toString()).toBe('x');
  });

  it("reads old archives' scripts/ and files/ trees ('_' marks local files)", async () => {
    const out = join(dir, 'old.tar');
    const pack = tar.pack();
    const writing = pipeline(pack, createWriteStream(out));
    pack.entry({ name: 'metadata.json' }, JSON.stringify({ type: 'js', filename: '/w/s.js' }));
    pack.entry({ name: 'data' }, 'main');
    pack.entry({ name: 'files/_/w/data.txt' }, 'd');
    pack.entry({ name: 'scripts/example.com/x.js' }, 'x');
    pack.finalize();
    await writing;
    const back = await readArchive(out);
    expect([...back.files.file.keys()].sort()).toEqual(['/w/data.txt', '/w/s.js']);
    expect([...back.files.https.keys()]).toEqual(['/example.com/x.js']);
  });

  it('refuses a tar without metadata.json', async () => {
    const out = join(dir, 'bad.tar');
    const pack = tar.pack();
    const writing = pipeline(pack, createWriteStream(out));
    pack.entry({ name: 'x.js' }, 'x');
    pack.finalize();
    await writing;
    await expect(readArchive(out)).rejects.toThrow('has no metadata.json');
  });
});

describe('archive options', () => {
  it("prints every k6 field in k6's order, null when unset, and reads them back without the nulls", () => {
    const json = k6OptionsJson({ vus: 2, thresholds: { checks: ['rate==1'] } });
    expect(Object.keys(json).slice(0, 5)).toEqual(['paused', 'vus', 'duration', 'iterations', 'stages']);
    expect(json['dns']).toEqual({ ttl: null, select: null, policy: null });
    expect(json['duration']).toBeNull();
    expect(withoutNulls(json)).toEqual({ vus: 2, thresholds: { checks: ['rate==1'] } });
  });

  it("adds k6's default trend stats and system tags, keeping the script's own", () => {
    const d = withArchiveDefaults({ summaryTrendStats: ['avg'] });
    expect(d['summaryTrendStats']).toEqual(['avg']);
    expect(d['systemTags']).toContain('url');
    expect(d['systemTags']).not.toContain('vu');
  });
});

describe('anonymized paths', () => {
  it("names a user's folder nobody, as k6 stores it", () => {
    expect(anonymizePath('/home/alice/tests/s.js')).toBe('/home/nobody/tests/s.js');
    expect(anonymizePath('/Users/Bob/s.js')).toBe('/Users/nobody/s.js');
    expect(anonymizePath('/root/s.js')).toBe('/root/s.js');
  });
});
