/**
 * Loads a payload set or a perf_analyzer input-data file through injected readers, so the same
 * code serves k6 (open) and Node (fs) and is testable in vitest. Detects the format from the JSON.
 */
import type { TensorSpec } from '../kserve/types.ts';
import {
  checkManifestFits,
  loadManifestSamples,
  type PayloadManifest,
  type PayloadSample,
  parseManifest,
} from './manifest.ts';
import { parsePerfAnalyzerData } from './perf-analyzer.ts';

/** File access the loader needs; k6 passes open(), Node passes fs reads. */
export interface PayloadReaders {
  readText(path: string): string;
  readBytes(path: string): ArrayBuffer;
}

/** What a perf_analyzer file needs to become requests (a manifest carries all of this itself). */
export interface PayloadLoadOptions {
  /** The model's inputs (dims without the batch dimension when the model batches). */
  inputs?: TensorSpec[];
  /** Rows per request for perf_analyzer files. @default 1 */
  batch?: number;
  /** Whether the model has a batch dimension. @default true */
  batched?: boolean;
  /** The model's catalog id (or served name), for the fix an error names. */
  model?: string;
}

/** A loaded set: the requests, and the manifest when the file was one. */
export interface LoadedPayloads {
  path: string;
  kind: 'manifest' | 'perf_analyzer';
  manifest?: PayloadManifest;
  samples: PayloadSample[];
}

/** Reads a manifest.json (with its .bin files) or a perf_analyzer input-data JSON file. */
export function loadPayloadFile(
  path: string,
  readers: PayloadReaders,
  options: PayloadLoadOptions = {},
): LoadedPayloads {
  const text = readers.readText(path);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new Error(
      `payload file ${path} is not JSON (${err instanceof Error ? err.message : String(err)}); give a manifest.json written by \`k6-triton payloads --model ${options.model ?? '<model>'}\` or perf_analyzer input data`,
    );
  }
  if (doc !== null && typeof doc === 'object' && 'samples' in doc) {
    const manifest = parseManifest(text, path);
    // The set must fit the model before its files are read: a set made for another model fails here.
    if (options.inputs)
      checkManifestFits(manifest, path, {
        ...(options.model ? { model: options.model } : {}),
        inputs: options.inputs,
        batch: options.batch ?? 1,
        batched: options.batched ?? true,
      });
    return {
      path,
      kind: 'manifest',
      manifest,
      samples: loadManifestSamples(manifest, path, readers.readBytes),
    };
  }
  if (doc !== null && typeof doc === 'object' && 'data' in doc) {
    if (!options.inputs) {
      throw new Error(
        `payload file ${path} is perf_analyzer input data; the model's inputs are needed to read it`,
      );
    }
    const samples = parsePerfAnalyzerData(text, {
      file: path,
      inputs: options.inputs,
      batch: options.batch ?? 1,
      batched: options.batched ?? true,
    });
    return { path, kind: 'perf_analyzer', samples };
  }
  throw new Error(
    `payload file ${path} is neither a payload manifest ("samples") nor perf_analyzer input data ("data")`,
  );
}
