/**
 * A buffered, asynchronous file writer for sample outputs: lines collect in memory and go to
 * the file in large chunks, off the hot path; `.gz` paths are gzip-compressed as k6 does.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { OutputChunk } from '../metrics/pipeline.ts';

export const FLUSH_BYTES = 256 * 1024;
export const FLUSH_MS = 200;

/** Where an output's lines go: a file here, or (another worker's) relay to the file's writer. */
export interface LineWriter {
  /** Appends text (usually one line). */
  write(s: string): void;
  /** Appends `s` unless a line with this key was written already. */
  writeOnce(key: string, s: string): void;
  /** Flushes and ends; resolves when the text is delivered. */
  close(): Promise<void>;
}

/** Collects text and writes it in chunks; close() flushes and waits for the file to be written. */
export class BufferedWriter implements LineWriter {
  readonly #once = new Set<string>();
  readonly #file: WriteStream;
  readonly #sink: Writable;
  #parts: string[] = [];
  #size = 0;
  readonly #timer: NodeJS.Timeout;
  #error: Error | null = null;

  constructor(readonly path: string) {
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
    this.#timer = setInterval(() => this.flush(), FLUSH_MS);
    this.#timer.unref();
  }

  /** Appends text (usually one line). */
  write(s: string): void {
    this.#parts.push(s);
    this.#size += s.length;
    if (this.#size >= FLUSH_BYTES) this.flush();
  }

  /** Appends `s` unless a line with this key was written already. */
  writeOnce(key: string, s: string): void {
    if (this.#once.has(key)) return;
    this.#once.add(key);
    this.write(s);
  }

  /** Appends another writer's chunk (a worker's samples, workers/relay.ts). */
  absorb(chunk: OutputChunk): void {
    for (const part of chunk) {
      if (typeof part === 'string') this.write(part);
      else this.writeOnce(part[0], part[1]);
    }
  }

  /** Hands buffered text to the stream. */
  flush(): void {
    if (this.#parts.length === 0) return;
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    this.#sink.write(chunk);
  }

  /** Flushes, ends the file and resolves when it is on disk; rejects on a write error. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.flush();
    await new Promise<void>((resolve, reject) => {
      this.#file.once('close', () => (this.#error ? reject(this.#error) : resolve()));
      this.#file.once('error', reject);
      this.#sink.end();
    });
  }
}
