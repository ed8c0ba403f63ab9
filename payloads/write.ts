/**
 * Writes a payload set: one raw little-endian .bin per input per request, a manifest.json naming
 * them with their sha256, and perf_analyzer's --input-data JSON (one batch-1 entry per row) beside
 * them. Written into a temporary folder and renamed, so a set in the cache is always complete.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { MANIFEST_FORMAT, type ManifestSample, type PayloadManifest } from '../lib/payload/manifest.ts';
import { perfAnalyzerEntry, splitRows } from '../lib/payload/perf-analyzer.ts';
import type { Datatype } from '../lib/tensor/datatypes.ts';

/** File names inside a set folder. */
export const MANIFEST_FILE = 'manifest.json';
export const PERF_ANALYZER_FILE = 'perf_analyzer.json';

/** One encoded tensor of one request. */
export interface EncodedTensor {
  name: string;
  datatype: Datatype;
  shape: number[];
  bytes: Uint8Array;
}

/** One encoded request. */
export interface EncodedSample {
  tensors: EncodedTensor[];
  label?: number;
  labels?: number[];
}

/** What the manifest says about the set besides its samples. */
export type SetHeader = Omit<PayloadManifest, 'format' | 'inputs' | 'samples' | 'perfAnalyzer' | 'count'>;

/** Input names may hold characters unfit for file names ("/", ":"); keep them readable. */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Streams perf_analyzer's JSON: batched requests become `rows` batch-1 entries each. */
function writePerfAnalyzer(path: string, samples: EncodedSample[], batched: boolean): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '{"data":[\n');
    let first = true;
    for (const sample of samples) {
      const rows = batched ? sample.tensors[0]!.shape[0]! : 1;
      const split = sample.tensors.map((t) =>
        batched ? splitRows({ ...t, data: t.bytes }, rows) : [t.bytes],
      );
      for (let r = 0; r < rows; r++) {
        const entry = perfAnalyzerEntry(
          sample.tensors.map((t, k) => ({
            name: t.name,
            shape: batched ? t.shape.slice(1) : t.shape,
            bytes: split[k]![r]!,
          })),
        );
        writeSync(fd, (first ? '' : ',\n') + entry);
        first = false;
      }
    }
    writeSync(fd, '\n]}\n');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the set to `dir` and returns the manifest path. `batched`: shapes start with the batch
 * dimension; `replace`: overwrite a set already there (else the existing one is kept).
 */
export function writeSet(
  dir: string,
  header: SetHeader,
  samples: EncodedSample[],
  options: { batched: boolean; replace: boolean },
): string {
  const { batched } = options;
  if (samples.length === 0) throw new Error(`payload set for ${header.model} has no samples`);
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    const manifestSamples: ManifestSample[] = samples.map((sample, i) => {
      const files: Record<string, string> = {};
      const sums: Record<string, string> = {};
      const shapes: Record<string, number[]> = {};
      for (const t of sample.tensors) {
        const file = `${String(i).padStart(6, '0')}.${fileSafe(t.name)}.bin`;
        writeFileSync(join(tmp, file), t.bytes);
        files[t.name] = file;
        sums[t.name] = sha256(t.bytes);
        const setShape = samples[0]!.tensors.find((s) => s.name === t.name)!.shape;
        if (t.shape.join(',') !== setShape.join(',')) shapes[t.name] = t.shape;
      }
      const out: ManifestSample = { files, sha256: sums };
      if (Object.keys(shapes).length > 0) out.shapes = shapes;
      if (sample.label !== undefined) out.label = sample.label;
      if (sample.labels !== undefined) out.labels = sample.labels;
      return out;
    });
    writePerfAnalyzer(join(tmp, PERF_ANALYZER_FILE), samples, batched);
    const manifest: PayloadManifest = {
      format: MANIFEST_FORMAT,
      ...header,
      count: samples.length,
      inputs: samples[0]!.tensors.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
      samples: manifestSamples,
      perfAnalyzer: PERF_ANALYZER_FILE,
    };
    writeFileSync(join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    mkdirSync(dirname(dir), { recursive: true });
    if (existsSync(dir)) {
      // Another process may have finished the same set meanwhile: keep it unless told to replace.
      if (!options.replace) {
        rmSync(tmp, { recursive: true, force: true });
        return join(dir, MANIFEST_FILE);
      }
      rmSync(dir, { recursive: true, force: true });
    }
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return join(dir, MANIFEST_FILE);
}
