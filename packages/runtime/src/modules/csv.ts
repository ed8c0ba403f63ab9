/**
 * `k6/experimental/csv`: parse() a k6/experimental/fs File into a SharedArray of records, or read it
 * record by record with a Parser, with k6's options (delimiter, skipFirstLine, fromLine, toLine,
 * asObjects) and line counting. papaparse splits the records; the rules around it are k6's.
 */
import { createHash } from 'node:crypto';
import Papa from 'papaparse';
import { currentRuntimeVu } from '../vu.ts';
import { SharedArray } from './data.ts';
import { File } from './fs.ts';
import { GoError } from './go-error.ts';

/** The options k6's csv functions take. */
export interface CsvOptions {
  delimiter?: string;
  skipFirstLine?: boolean;
  fromLine?: number;
  toLine?: number;
  asObjects?: boolean;
}

type CsvRecord = string[] | Record<string, string>;

/** k6's first look at the options (its options object's own checks); `context` prefixes the reason. */
function readOptions(o: CsvOptions, context: string): void {
  const fail = (reason: string) => new GoError(`${context}; reason: ${reason}`);
  if (o.delimiter !== undefined && String(o.delimiter).length > 1)
    throw fail('delimiter must be a single character');
  if (o.fromLine !== undefined && o.toLine !== undefined && o.fromLine >= o.toLine)
    throw fail('fromLine must be less than or equal to toLine');
}

/** k6's reader's option checks, in its order and words. */
function checkOptions(o: CsvOptions): void {
  const from = o.fromLine;
  const to = o.toLine;
  if (o.asObjects && o.skipFirstLine)
    throw new GoError("the 'header' option cannot be enabled when 'skipFirstLine' is true");
  if (o.asObjects && from !== undefined && from > 0)
    throw new GoError(
      "the 'header' option cannot be enabled when 'fromLine' is set to a value greater than 0",
    );
  if (from !== undefined && from < 0)
    throw new GoError(`the 'fromLine' option must be greater than or equal to 0; got ${from}`);
  if (to !== undefined && to < 0)
    throw new GoError(`the 'toLine' option must be greater than or equal to 0; got ${to}`);
  if (from !== undefined && to !== undefined && from >= to)
    throw new GoError(
      `the 'fromLine' option must be less than the 'toLine' option; got 'fromLine': ${from}, 'toLine': ${to}`,
    );
}

/** The rest of `file` (from its offset) as rows, split by papaparse (a stray quote fails at once). */
function rowsOf(file: File, delimiter: string): string[][] {
  const start = file.data.byteLength - (file.take(Number.POSITIVE_INFINITY) ?? 0);
  const text = Buffer.from(
    file.data.buffer,
    file.data.byteOffset + start,
    file.data.byteLength - start,
  ).toString('utf8');
  const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: true });
  const error = parsed.errors.find((e) => e.type === 'Quotes');
  if (error) throw new GoError(`parse error on line ${(error.row ?? 0) + 1}: ${error.message}`);
  return parsed.data;
}

/** Reads one record at a time: null after the last (or past toLine); throws for a malformed one. */
type RecordReader = () => CsvRecord | null;

/**
 * k6's Reader: the header and skipped lines are read (and fail) when it is made, records as they are asked
 * for; every record must have the first one's field count, as Go's CSV reader requires.
 */
function openReader(file: File, options: CsvOptions): RecordReader {
  try {
    checkOptions(options);
  } catch (err) {
    throw new GoError(`failed to create a new parser; reason: ${(err as Error).message}`);
  }
  const rows = rowsOf(file, options.delimiter || ',');
  const width = rows[0]?.length ?? 0;
  let i = 0;
  let line = 0;
  const row = (): string[] | null => {
    const r = rows[i];
    if (!r) return null;
    i++;
    line++;
    if (r.length !== width) throw new GoError(`record on line ${i}: wrong number of fields`);
    return r;
  };
  const skip = (why: string): string[] => {
    try {
      const r = row();
      if (r) return r;
      throw new GoError('EOF');
    } catch (err) {
      throw new GoError(`failed to create a new parser; reason: ${why}; reason: ${(err as Error).message}`);
    }
  };
  const header = options.asObjects ? skip('failed to read the first line') : null;
  const from = options.fromLine ?? 0;
  if (options.skipFirstLine && from === 0) skip('failed to skip the first line');
  while (line < from) skip(`failed to skip lines until line ${from}`);
  const to = options.toLine ?? 0;
  return () => {
    if (to > 0 && line > to) return null;
    const r = row();
    if (!r || !header) return r;
    if (r.length !== header.length)
      throw new GoError(`record length (${r.length}) doesn't match header length (${header.length})`);
    return Object.fromEntries(header.map((name, k) => [name, r[k]!]));
  };
}

function fileArgument(file: unknown, what: string): File {
  if (file === null || file === undefined)
    throw new GoError(`${what} takes at least one non-nil source argument`);
  if (!(file instanceof File))
    throw new GoError(`first argument expected to be a fs.File instance, got ${typeof file} instead`);
  return file;
}

/** Parses the whole file into a SharedArray (one per file and options, built once per test). */
export async function parse(file: File, options: CsvOptions = {}): Promise<readonly CsvRecord[]> {
  fileArgument(file, 'csv parse()');
  const o = { ...options };
  readOptions(o, 'failed to interpret the provided Parser options');
  const key = JSON.stringify({
    path: file.path,
    options: {
      asObjects: o.asObjects ?? false,
      delimiter: o.delimiter || ',',
      fromLine: o.fromLine ?? null,
      skipFirstLine: o.skipFirstLine ?? false,
      toLine: o.toLine ?? null,
    },
  });
  const name = `csv.parse.${createHash('sha256').update(key).digest('hex')}`;
  const made: CsvRecord[] = [];
  if (!currentRuntimeVu().run.sharedArrays.has(name)) {
    const read = openReader(file, o);
    try {
      for (let r = read(); r !== null; r = read()) made.push(r);
    } catch (err) {
      // A record the reader cannot read is k6's "failed to read record".
      throw new GoError(`failed to read record; reason: ${(err as Error).message}`);
    }
  }
  return new SharedArray(name, () => made) as unknown as readonly CsvRecord[];
}

/** Reads a file record by record: `await parser.next()` gives `{ done, value }`. */
export class Parser {
  readonly #read: RecordReader;

  constructor(file: File, options: CsvOptions = {}) {
    if (!currentRuntimeVu().inInit)
      throw new GoError('csv Parser constructor must be called in the init context');
    fileArgument(file, 'csv Parser constructor');
    readOptions(options, 'encountered an error while interpreting Parser options');
    this.#read = openReader(file, { ...options });
  }

  /** The next record, or `{ done: true, value: [] }` after the last; rejects for a malformed record. */
  async next(): Promise<{ done: boolean; value: CsvRecord }> {
    const r = this.#read();
    return r === null ? { done: true, value: [] } : { done: false, value: r };
  }
}

export default { parse, Parser };
