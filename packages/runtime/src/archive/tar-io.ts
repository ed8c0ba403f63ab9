/**
 * k6's archive format on disk (its lib/archive.go): a tar of `metadata.json`, `data` (the main script's
 * text) and the files of each scheme under `file/<absolute path>` and `https/<host>/<path>`, where the main
 * script's own entry is a hard link to `data`. Older archives' `scripts/` and `files/` trees are read too.
 * The tar itself is tar-stream's.
 */
import { createReadStream, createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/** The schemes k6 keeps files under. */
export type Scheme = 'file' | 'https';

/** An archive in memory: its metadata (as JSON), the main script's text and every other file by scheme. */
export interface ArchiveContents {
  metadata: Record<string, unknown>;
  data: Buffer;
  /** Files by scheme, keyed by path on that scheme's tree (`/abs/path` or `/host/path`). */
  files: Record<Scheme, Map<string, Buffer>>;
}

/** The scheme and tree path of a file URL or https URL (k6's getURLPathOnFs). */
export function pathOnTree(url: string): { scheme: Scheme; path: string } {
  const u = new URL(url);
  if (u.protocol === 'file:')
    return { scheme: 'file', path: posix.normalize(decodeURIComponent(u.pathname)) };
  return { scheme: 'https', path: posix.normalize(`/${u.host}${decodeURIComponent(u.pathname)}`) };
}

/** The scheme and path of a tar entry, k6's way (old archives: `scripts/`/`files/`, `_` marks local files). */
function entryPlace(name: string): { scheme: Scheme; path: string } | undefined {
  const norm = posix.normalize(name);
  const slash = norm.indexOf('/');
  if (slash < 0) return undefined;
  const prefix = norm.slice(0, slash);
  const path = norm.slice(slash);
  if (prefix === 'file' || prefix === 'https') return { scheme: prefix, path };
  if (prefix === 'files' || prefix === 'scripts') {
    if (path.startsWith('/_')) return { scheme: 'file', path: path.slice(2) };
    return { scheme: 'https', path };
  }
  throw new Error(`unknown file prefix \`${prefix}\` for file \`${norm}\``);
}

/** Reads an archive file into memory. */
export async function readArchive(path: string): Promise<ArchiveContents> {
  const files: ArchiveContents['files'] = { file: new Map(), https: new Map() };
  let metadata: Record<string, unknown> | undefined;
  let data: Buffer | undefined;
  const extract = tar.extract();
  const reading = pipeline(createReadStream(path), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    // Directories and the main script's link to `data` carry nothing k6 reads.
    if (entry.header.type !== 'file') continue;
    const body = Buffer.concat(chunks);
    if (entry.header.name === 'metadata.json') metadata = JSON.parse(body.toString('utf8'));
    else if (entry.header.name === 'data') data = body;
    else {
      const place = entryPlace(entry.header.name);
      if (place) files[place.scheme].set(place.path, body);
    }
  }
  await reading;
  if (!metadata) throw new Error(`${path} is not a k6 archive: it has no metadata.json`);
  if (typeof metadata['filename'] !== 'string') throw new Error(`${path}: metadata.json names no filename`);
  const contents = { metadata, data: data ?? Buffer.alloc(0), files };
  const main = pathOnTree(mainUrl(contents));
  files[main.scheme].set(main.path, contents.data);
  return contents;
}

/** The main script's URL (metadata's filename: a file URL, an https URL, or k6's scheme-less form). */
export function mainUrl(contents: Pick<ArchiveContents, 'metadata'>): string {
  const name = String(contents.metadata['filename']);
  if (/^[a-z]+:\/\//.test(name)) return name;
  return name.startsWith('/') ? `file://${name}` : `https://${name}`;
}

/** Writes the archive's trees under `dir` (`dir/file/...`, `dir/https/...`) and returns the main script's path there. */
export function extractTo(contents: ArchiveContents, dir: string): string {
  for (const scheme of ['file', 'https'] as const) {
    for (const [path, body] of contents.files[scheme]) {
      const to = join(dir, scheme, path);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, body);
    }
  }
  const main = pathOnTree(mainUrl(contents));
  return join(dir, main.scheme, main.path);
}

/** Every folder above the files, the tree's root (`''`) first (k6 writes an entry for each, sorted). */
function folders(paths: string[]): string[] {
  const out = new Set<string>();
  for (const p of paths)
    for (let d = posix.dirname(p); d !== '/' && d !== '.'; d = posix.dirname(d)) out.add(d);
  return ['', ...[...out].sort()];
}

/** Writes an archive in k6's layout (metadata.json, data, then each scheme's folders and files, sorted). */
export async function writeArchive(
  contents: ArchiveContents,
  out: string | NodeJS.WritableStream,
): Promise<void> {
  const pack = tar.pack();
  const now = new Date();
  const metadata = Buffer.from(`${JSON.stringify(contents.metadata, null, 2)}\n`);
  const writing = pipeline(pack, typeof out === 'string' ? createWriteStream(out) : out);
  pack.entry({ name: 'metadata.json', mode: 0o644, mtime: now }, metadata);
  pack.entry({ name: 'data', mode: 0o644, mtime: now }, contents.data);
  const main = pathOnTree(mainUrl(contents));
  for (const scheme of ['file', 'https'] as const) {
    const tree = contents.files[scheme];
    if (tree.size === 0) continue;
    const paths = [...tree.keys()].sort();
    for (const d of folders(paths))
      pack.entry({ name: `${scheme}${d}`, type: 'directory', mode: 0o755, mtime: now });
    for (const p of paths) {
      if (scheme === main.scheme && p === main.path)
        pack.entry({ name: `${scheme}${p}`, type: 'link', linkname: 'data', mtime: now });
      else pack.entry({ name: `${scheme}${p}`, mode: 0o644, mtime: now }, tree.get(p)!);
    }
  }
  pack.finalize();
  await writing;
}
