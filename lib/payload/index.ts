/**
 * Payload sets inside k6: call loadPayloads() in the init context (each file is opened once per VU,
 * never per request) and pick a sample per iteration with sampleFor().
 */
import { type LoadedPayloads, loadPayloadFile, type PayloadLoadOptions } from './load.ts';
import type { PayloadSample } from './manifest.ts';

export type { LoadedPayloads, PayloadLoadOptions, PayloadReaders } from './load.ts';
export { loadPayloadFile } from './load.ts';
export type {
  ManifestInput,
  ManifestSample,
  PayloadManifest,
  PayloadSample,
  PayloadTensor,
} from './manifest.ts';
export { checkPayloadBytes, MANIFEST_FORMAT, parseManifest, resolveBeside } from './manifest.ts';
export { parsePerfAnalyzerData, perfAnalyzerEntry, splitRows } from './perf-analyzer.ts';
export { base64Decode, base64Encode } from '../kserve/base64.ts';

/** k6's readers: open() is only callable in the init context, which is where sets are loaded. */
const K6_READERS = {
  readText: (path: string) => open(path),
  readBytes: (path: string) => open(path, 'b'),
};

/**
 * Loads a payload manifest (or a perf_analyzer input-data file, given the model's inputs) with k6's open().
 * Use an absolute path: k6 resolves relative paths against the script's folder.
 */
export function loadPayloads(path: string, options: PayloadLoadOptions = {}): LoadedPayloads {
  return loadPayloadFile(path, K6_READERS, options);
}

/** Round-robin pick of the sample for an iteration number (e.g. exec.scenario.iterationInTest). */
export function sampleFor(set: LoadedPayloads, iteration: number): PayloadSample {
  return set.samples[iteration % set.samples.length]!;
}
