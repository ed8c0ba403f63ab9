/**
 * `k6/experimental/fs`: open() a file in the init context, then stat(), read() and seek() it, as k6 does.
 * A file is read once per test and its bytes shared by every VU (k6's cache); each File has its own offset.
 * Errors are k6's: objects with `name` (NotFoundError, ForbiddenError, TypeError, ...) and `message`.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { currentRuntimeVu } from '../vu.ts';

/** k6's whence values for seek(). */
export const SeekMode = { Start: 0, Current: 1, End: 2 } as const;

type FsErrorName = 'NotFoundError' | 'InvalidResourceError' | 'ForbiddenError' | 'TypeError' | 'EOFError';

/** k6's fsError: `name` and `message`, printed as "name: message". */
export class FsError {
  constructor(
    readonly name: FsErrorName,
    readonly message: string,
  ) {}
  toString(): string {
    return `${this.name}: ${this.message}`;
  }
}

/** A file's name and size in bytes, as stat() gives them. */
export interface FileInfo {
  name: string;
  size: number;
}

/** One opened file: the test's shared bytes and this object's own offset. */
export class File {
  #offset = 0;

  constructor(
    readonly path: string,
    /** The bytes every VU's File of this path shares (csv.ts reads them too). */
    readonly data: Uint8Array,
  ) {}

  /** The file's name and size. */
  async stat(): Promise<FileInfo> {
    return { name: basename(this.path), size: this.data.byteLength };
  }

  /** Reads into `into` from the offset: the byte count, or null at the end of the file. */
  async read(into: Uint8Array): Promise<number | null> {
    if (into === null || into === undefined)
      throw new FsError('TypeError', 'read() failed; reason: into argument cannot be null or undefined');
    if (!(into instanceof Uint8Array))
      throw new FsError('TypeError', 'read() failed; reason: into argument must be a Uint8Array');
    const n = this.take(into.byteLength);
    if (n === null) return null;
    into.set(this.data.subarray(this.#offset - n, this.#offset));
    return n;
  }

  /** Moves the offset (whence: SeekMode) and returns the new one; k6's rules, End counting from the last byte. */
  async seek(offset: number, whence: number): Promise<number> {
    for (const [what, v] of [
      ['offset', offset],
      ['whence', whence],
    ] as const) {
      if (v === null || v === undefined)
        throw new FsError(
          'TypeError',
          `seek() failed; reason: the ${what} argument cannot be null or undefined`,
        );
      if (!Number.isInteger(v))
        throw new FsError('TypeError', `seek() failed; reason: the ${what} argument must be a number`);
    }
    const size = this.data.byteLength;
    let next: number;
    if (whence === SeekMode.Start) {
      if (offset < 0) throw new FsError('TypeError', 'offset cannot be negative when using SeekModeStart');
      next = offset;
    } else if (whence === SeekMode.Current) next = this.#offset + offset;
    else if (whence === SeekMode.End) {
      if (offset > 0) throw new FsError('TypeError', 'offset cannot be positive when using SeekModeEnd');
      next = size - 1 + offset;
    } else throw new FsError('TypeError', 'seek() failed; reason: the whence argument must be a SeekMode');
    if (next < 0) throw new FsError('TypeError', 'seeking before start of file');
    if (next > size) throw new FsError('TypeError', 'seeking beyond end of file');
    this.#offset = next;
    return next;
  }

  /** Advances the offset by up to `n` bytes: how many, or null at the end (csv.ts reads the rest this way). */
  take(n: number): number | null {
    const size = this.data.byteLength;
    if (this.#offset >= size) return null;
    const end = Math.min(this.#offset + n, size);
    const got = end - this.#offset;
    this.#offset = end;
    return got;
  }
}

/** Opens `path` (relative to the script) in the init context; rejects with k6's errors elsewhere. */
export async function open(path: string): Promise<File> {
  const vu = currentRuntimeVu();
  if (!vu.inInit)
    throw new FsError(
      'ForbiddenError',
      'open() failed; reason: opening a file is allowed only in the Init context',
    );
  if (path === null || path === undefined)
    throw new FsError('TypeError', 'open() failed; reason: path cannot be null or undefined');
  if (String(path) === '') throw new FsError('TypeError', 'open() failed; reason: path cannot be empty');
  const abs = resolve(dirname(vu.run.scriptPath), String(path).replace(/^file:\/\//, ''));
  let entry = vu.run.openCache.get(abs);
  if (!entry?.bytes) {
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      throw new FsError('NotFoundError', `no such file or directory "${abs}"`);
    }
    if (isDir)
      throw new FsError('InvalidResourceError', `cannot open "${abs}": opening a directory is not supported`);
    entry ??= {};
    entry.bytes = new Uint8Array(readFileSync(abs));
    vu.run.openCache.set(abs, entry);
  }
  return new File(abs, entry.bytes);
}

export default { open, SeekMode };
