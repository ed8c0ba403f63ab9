/**
 * The payload set format: a manifest.json beside one raw little-endian .bin per input per sample.
 * Pure functions (no k6, no Node) so that vitest checks exactly what runs inside k6.
 */
import type { Datatype } from '../tensor/datatypes.ts';
import type { TensorSpec } from '../kserve/types.ts';
import { byteSize, isDatatype } from '../tensor/index.ts';

/** Format tag written into every manifest; bump when the layout changes. */
export const MANIFEST_FORMAT = 'k6-triton-payloads/1';

/** One input of a set: shape includes the batch dimension when the model batches. */
export interface ManifestInput {
  name: string;
  datatype: Datatype;
  shape: number[];
}

/** One request's worth of tensors: file paths are relative to the manifest's folder. */
export interface ManifestSample {
  files: Record<string, string>;
  sha256: Record<string, string>;
  /** Per-input shapes when this sample differs from the set's (perf_analyzer files with "shape"). */
  shapes?: Record<string, number[]>;
  /** The expected class when the request holds one labelled item (MNIST digits). */
  label?: number;
  /** One expected class per batch row when the request holds several labelled items. */
  labels?: number[];
}

/** A whole payload set. */
export interface PayloadManifest {
  format: string;
  /** Catalog id (or the live model's name). */
  model: string;
  /** Triton model name the set was made for. */
  modelName: string;
  precision: string;
  /** Request batch size (1 for models without a batch dimension). */
  batch: number;
  count: number;
  seed: number;
  /** The generator and its parameters, as the cache key saw them. */
  recipe: Record<string, unknown>;
  inputs: ManifestInput[];
  samples: ManifestSample[];
  /** perf_analyzer --input-data file beside the manifest, if written. */
  perfAnalyzer?: string;
}

/** One input tensor ready to send: raw little-endian bytes. */
export interface PayloadTensor {
  name: string;
  datatype: Datatype;
  shape: number[];
  data: ArrayBuffer;
}

/** One request's inputs, plus the expected answer when the set knows it. */
export interface PayloadSample {
  inputs: PayloadTensor[];
  label?: number;
  labels?: number[];
}

function fail(path: string, what: string): never {
  throw new Error(
    `invalid payload manifest ${path}: ${what}; write the set with \`k6-triton payloads --model <model>\` (docs/payloads.md)`,
  );
}

function isShape(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((d) => Number.isInteger(d) && d >= 0);
}

/** Parses and validates manifest.json text; errors name the file and the field. */
export function parseManifest(text: string, path: string): PayloadManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    fail(path, `not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof doc !== 'object' || doc === null) fail(path, 'expected a JSON object');
  const m = doc as Partial<PayloadManifest>;
  if (m.format !== MANIFEST_FORMAT)
    fail(path, `format is ${JSON.stringify(m.format)}, expected "${MANIFEST_FORMAT}"`);
  if (typeof m.model !== 'string' || typeof m.modelName !== 'string')
    fail(path, 'model and modelName must be strings');
  if (!Array.isArray(m.inputs) || m.inputs.length === 0) fail(path, 'inputs must be a non-empty array');
  for (const [i, input] of m.inputs.entries()) {
    if (typeof input?.name !== 'string') fail(path, `inputs[${i}].name must be a string`);
    if (!isDatatype(input.datatype))
      fail(path, `inputs[${i}].datatype "${input.datatype}" is not a Triton datatype`);
    if (!isShape(input.shape)) fail(path, `inputs[${i}].shape must be non-negative integers`);
  }
  if (!Array.isArray(m.samples) || m.samples.length === 0) fail(path, 'samples must be a non-empty array');
  for (const [i, sample] of m.samples.entries()) {
    for (const input of m.inputs) {
      if (typeof sample?.files?.[input.name] !== 'string')
        fail(path, `samples[${i}] has no file for ${input.name}`);
      const shape = sample.shapes?.[input.name];
      if (shape !== undefined && !isShape(shape))
        fail(path, `samples[${i}].shapes.${input.name} is not a shape`);
    }
  }
  return m as PayloadManifest;
}

/** The model a set is checked against: its inputs (dims without the batch dimension) and the run's batch. */
export interface ModelInputs {
  /** Catalog id (or served name), for the fix in an error. */
  model?: string;
  inputs: readonly TensorSpec[];
  batch: number;
  batched: boolean;
}

/** Whether a shape fits dims (-1 matches any size). */
function fits(shape: readonly number[], dims: readonly number[]): boolean {
  return shape.length === dims.length && dims.every((d, i) => d === -1 || d === shape[i]);
}

/**
 * Throws one line naming the manifest, the field and the fix when a set does not fit the model it is sent
 * to: another input name, datatype, shape or batch than the model's (the server would refuse every request).
 */
export function checkManifestFits(manifest: PayloadManifest, path: string, model: ModelInputs): void {
  const names = model.inputs.map((s) => s.name).join(', ');
  const remake = `make a set with \`k6-triton payloads --model ${model.model ?? '<model>'}\``;
  const madeFor = manifest.model === model.model ? '' : ` (the set was made for ${manifest.model})`;
  for (const [i, input] of manifest.inputs.entries()) {
    if (!model.inputs.some((s) => s.name === input.name))
      throw new Error(
        `payload manifest ${path}: inputs[${i}].name "${input.name}" is not an input of the model (inputs: ${names})${madeFor}; ${remake}`,
      );
  }
  for (const spec of model.inputs) {
    const i = manifest.inputs.findIndex((m) => m.name === spec.name);
    const input = manifest.inputs[i];
    if (!input)
      throw new Error(
        `payload manifest ${path}: inputs has no "${spec.name}" (the model's inputs: ${names})${madeFor}; ${remake}`,
      );
    if (input.datatype !== spec.datatype)
      throw new Error(
        `payload manifest ${path}: inputs[${i}].datatype is ${input.datatype}, the model takes ${spec.datatype} for ${spec.name}; pass --precision ${manifest.precision} if the model serves it, or ${remake}`,
      );
    const dims = model.batched ? [model.batch, ...spec.dims] : spec.dims;
    manifest.samples.forEach((sample, j) => {
      const shape = sample.shapes?.[spec.name] ?? input.shape;
      if (fits(shape, dims)) return;
      const field = sample.shapes?.[spec.name] ? `samples[${j}].shapes.${spec.name}` : `inputs[${i}].shape`;
      const batch =
        model.batched && fits(shape.slice(1), spec.dims)
          ? `; the set holds batch ${shape[0]}: pass --batch ${shape[0]}, or make a set with \`k6-triton payloads --model ${model.model ?? '<model>'} --batch ${model.batch}\``
          : `${madeFor}; ${remake}`;
      throw new Error(
        `payload manifest ${path}: ${field} is [${shape.join(',')}], the model takes ${spec.name} [${dims.join(',')}]${batch}`,
      );
    });
  }
}

/** Resolves a manifest-relative file name against the manifest's own path (plain string work: runs in k6). */
export function resolveBeside(manifestPath: string, relative: string): string {
  if (relative.startsWith('/')) return relative;
  const slash = manifestPath.lastIndexOf('/');
  return slash < 0 ? relative : manifestPath.slice(0, slash + 1) + relative;
}

/** Checks BYTES data: 4-byte little-endian length prefixes covering the buffer exactly; returns the element count. */
function countBytesElements(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  let count = 0;
  while (offset + 4 <= data.byteLength) {
    offset += 4 + view.getUint32(offset, true);
    count++;
  }
  return offset === data.byteLength ? count : -1;
}

/** What is wrong when raw bytes do not fit the tensor's datatype and shape; undefined when they fit. */
export function payloadBytesProblem(
  input: ManifestInput,
  data: ArrayBuffer | Uint8Array,
): string | undefined {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const what = `${input.name} ${input.datatype} [${input.shape.join(',')}]`;
  if (input.datatype === 'BYTES') {
    const elements = input.shape.reduce((a, b) => a * b, 1);
    const found = countBytesElements(bytes);
    return found === elements
      ? undefined
      : `holds ${found < 0 ? 'malformed' : found} length-prefixed elements; expected ${elements} for ${what}`;
  }
  const expected = byteSize(input.datatype, input.shape);
  if (bytes.byteLength === expected) return undefined;
  const how = bytes.byteLength < expected ? 'truncated' : 'too long';
  return `${how}: expected ${expected} bytes, found ${bytes.byteLength} (${what})`;
}

/** Throws "payload file F: truncated: expected N bytes, found M …" when raw bytes do not fit the tensor. */
export function checkPayloadBytes(file: string, input: ManifestInput, data: ArrayBuffer | Uint8Array): void {
  const problem = payloadBytesProblem(input, data);
  if (problem) throw new Error(`payload file ${file}: ${problem}`);
}

/**
 * A file of a payload set that cannot be read or does not hold what its manifest says. `detail` names the
 * file, the manifest and the field; the message adds a fix, which the CLI replaces by one it has checked
 * (payloads/check.ts: "regenerate with … --force" only when that rewrites this very set).
 */
export class PayloadFileError extends Error {
  /** "payload file F (manifest M samples[i] input): problem", without the fix. */
  readonly detail: string;
  constructor(
    readonly manifest: PayloadManifest,
    readonly manifestPath: string,
    readonly file: string,
    field: string,
    problem: string,
  ) {
    const detail = `payload file ${file} (${manifestPath} ${field}): ${problem}`;
    super(
      `${detail}; restore the file, or make a new set with \`k6-triton payloads --model ${manifest.model}\` and pass its manifest.json`,
    );
    this.detail = detail;
  }
}

/** The inputs of sample i with their shapes (the sample's own shapes win over the set's). */
export function sampleInputs(manifest: PayloadManifest, i: number): ManifestInput[] {
  const sample = manifest.samples[i]!;
  return manifest.inputs.map((input) => ({ ...input, shape: sample.shapes?.[input.name] ?? input.shape }));
}

/**
 * Reads every sample of a manifest through `readBytes` (k6: open(path, 'b'); Node: readFileSync),
 * checking each file's size; each file is read exactly once.
 */
export function loadManifestSamples(
  manifest: PayloadManifest,
  manifestPath: string,
  readBytes: (path: string) => ArrayBuffer,
): PayloadSample[] {
  return manifest.samples.map((sample, i) => {
    const inputs = sampleInputs(manifest, i).map((input) => {
      const file = resolveBeside(manifestPath, sample.files[input.name]!);
      const field = `samples[${i}].files["${input.name}"]`;
      let data: ArrayBuffer;
      try {
        data = readBytes(file);
      } catch (err) {
        const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
        const missing = why === 'ENOENT' || /no such file/i.test(why ?? '');
        throw new PayloadFileError(
          manifest,
          manifestPath,
          file,
          field,
          `${missing ? 'missing' : 'cannot be read'} (${why})`,
        );
      }
      const problem = payloadBytesProblem(input, data);
      if (problem) throw new PayloadFileError(manifest, manifestPath, file, field, problem);
      return { name: input.name, datatype: input.datatype, shape: input.shape, data };
    });
    const out: PayloadSample = { inputs };
    if (sample.label !== undefined) out.label = sample.label;
    if (sample.labels !== undefined) out.labels = sample.labels;
    return out;
  });
}
