/**
 * A buffered, asynchronous file writer for sample outputs: lines collect in memory and go to
 * the file in large chunks, off the hot path; `.gz` paths are gzip-compressed as k6 does.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { OutputChunk } from '../metrics/pipeline.ts';

const FLUSH_BYTES = 256 * 1024;
const FLUSH_MS = 200;

/** Where an output's lines go: a file here, or (another worker's) relay to the file's writer. */
export interface LineWriter {
  /** Appends text (usually one line). */
  write(s: string): void;
  /** Appends `s` unless a line with this key was written already. */
  writeOnce(key: string, s: string): void;
  /** Flushes and ends; resolves when the text is delivered. */
  close(): Promise<void>;
}

/**
 * Buffered lines and once-lines, handed on in chunks (at FLUSH_BYTES, every FLUSH_MS, and at close):
 * a file writer writes them, a worker's relay (workers/link.ts) sends them to the file's writer.
 */
export abstract class ChunkWriter implements LineWriter {
  protected parts: OutputChunk = [];
  #size = 0;
  readonly #once = new Set<string>();
  readonly #timer: NodeJS.Timeout;

  /** @param keepKeys whether once-lines stay `[key, line]` in the chunk (a relay: the receiver dedupes). */
  constructor(readonly keepKeys: boolean) {
    this.#timer = setInterval(() => this.flush(), FLUSH_MS);
    this.#timer.unref();
  }

  /** Appends text (usually one line). */
  write(s: string): void {
    this.parts.push(s);
    this.#size += s.length;
    if (this.#size >= FLUSH_BYTES) this.flush();
  }

  /** Appends `s` unless a line with this key was written already. */
  writeOnce(key: string, s: string): void {
    if (this.#once.has(key)) return;
    this.#once.add(key);
    if (this.keepKeys) this.parts.push([key, s]);
    else this.write(s);
  }

  /** Hands the buffered chunk on. */
  flush(): void {
    if (this.parts.length === 0) return;
    const chunk = this.parts;
    this.parts = [];
    this.#size = 0;
    this.deliver(chunk);
  }

  /** Where a chunk goes. */
  protected abstract deliver(chunk: OutputChunk): void;

  /** Stops the timer and flushes; subclasses then finish their sink. */
  close(): Promise<void> {
    clearInterval(this.#timer);
    this.flush();
    return Promise.resolve();
  }
}

/** Collects text and writes it to a file in chunks; close() flushes and waits for the file to be written. */
export class BufferedWriter extends ChunkWriter {
  readonly #file: WriteStream;
  readonly #sink: Writable;
  #error: Error | null = null;

  constructor(readonly path: string) {
    super(false);
    this.#file = createWriteStream(path);
    this.#file.on('error', (e) => {
      this.#error ??= e;
    });
    if (path.endsWith('.gz')) {
      const gz = createGzip();
      gz.pipe(this.#file);
      this.#sink = gz;
    } else {
      this.#sink = this.#file;
    }
  }

  /** Appends another writer's chunk (a worker's samples, workers/link.ts). */
  absorb(chunk: OutputChunk): void {
    for (const part of chunk) {
      if (typeof part === 'string') this.write(part);
      else this.writeOnce(part[0], part[1]);
    }
  }

  protected deliver(chunk: OutputChunk): void {
    this.#sink.write((chunk as string[]).join(''));
  }

  /** Flushes, ends the file and resolves when it is on disk; rejects on a write error. */
  override async close(): Promise<void> {
    await super.close();
    await new Promise<void>((resolve, reject) => {
      this.#file.once('close', () => (this.#error ? reject(this.#error) : resolve()));
      this.#file.once('error', reject);
      this.#sink.end();
    });
  }
}
