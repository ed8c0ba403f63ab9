/**
 * perf_analyzer's --input-data JSON, both ways: every "data" entry holds batch-1 tensors
 * ({"IN": [..]}, {"IN": {"content": [..], "shape": [..]}}, {"IN": {"b64": "..", "shape": [..]}} or
 * {"IN": {"content": {"b64": ".."}}}); streams (arrays of entries) are read in order.
 * Pure: runs in k6, in the Node runtime and in vitest.
 */
import type { TensorSpec } from '../kserve/types.ts';
import { encodeBytesTensor, encodeTensor } from '../tensor/index.ts';
import { base64Decode, base64Encode } from '../kserve/base64.ts';
import { checkPayloadBytes, type PayloadSample, type PayloadTensor } from './manifest.ts';

/** How to turn perf_analyzer entries into requests. */
export interface PerfAnalyzerReadOptions {
  /** File name for error messages. */
  file: string;
  /** The model's inputs; dims exclude the batch dimension when `batched`. */
  inputs: TensorSpec[];
  /** Rows per request (consecutive entries are stacked); ignored when the model does not batch. */
  batch: number;
  /** True when the model has a batch dimension (max_batch_size > 0). */
  batched: boolean;
}

interface Row {
  shape: number[];
  bytes: Uint8Array;
}

function flatten(values: unknown[], out: unknown[] = []): unknown[] {
  for (const v of values) {
    if (Array.isArray(v)) flatten(v, out);
    else out.push(v);
  }
  return out;
}

/** Serialises a perf_analyzer "content" array to raw bytes for the datatype. */
function contentBytes(spec: TensorSpec, content: unknown[], where: string): Uint8Array {
  const flat = flatten(content);
  if (spec.datatype === 'BYTES') {
    return encodeBytesTensor(flat.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
  }
  const numbers = flat.map((v) => {
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v !== 'number')
      throw new Error(`${where}: ${spec.name} holds ${JSON.stringify(v)}; expected numbers`);
    return v;
  });
  return encodeTensor(spec.datatype, numbers);
}

/** Reads one input of one entry: returns its batch-1 shape and bytes, size-checked. */
function readRow(spec: TensorSpec, tensor: unknown, where: string): Row {
  let shape = spec.dims;
  let bytes: Uint8Array;
  if (Array.isArray(tensor)) {
    bytes = contentBytes(spec, tensor, where);
  } else if (typeof tensor === 'object' && tensor !== null) {
    const t = tensor as { shape?: unknown; b64?: unknown; content?: unknown };
    if (t.shape !== undefined) {
      if (!Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) {
        throw new Error(`${where}: ${spec.name}.shape must be non-negative integers`);
      }
      shape = t.shape as number[];
    }
    const content = t.b64 !== undefined ? t : t.content;
    if (Array.isArray(content)) bytes = contentBytes(spec, content, where);
    else if (
      typeof content === 'object' &&
      content !== null &&
      typeof (content as { b64?: unknown }).b64 === 'string'
    ) {
      bytes = base64Decode((content as { b64: string }).b64, `${where} ${spec.name}`);
    } else throw new Error(`${where}: ${spec.name} has no "content" array or "b64" string`);
  } else {
    throw new Error(`${where}: ${spec.name} must be an array or an object with "content" or "b64"`);
  }
  if (shape.some((d) => d < 0)) {
    throw new Error(
      `${where}: ${spec.name} has variable dims [${shape.join(',')}]; add a "shape" field to the entry`,
    );
  }
  if (shape.length !== spec.dims.length || shape.some((d, i) => spec.dims[i] !== -1 && spec.dims[i] !== d)) {
    throw new Error(
      `${where}: ${spec.name} shape [${shape.join(',')}] does not fit the model's [${spec.dims.join(',')}]`,
    );
  }
  checkPayloadBytes(`${where} ${spec.name}`, { name: spec.name, datatype: spec.datatype, shape }, bytes);
  return { shape, bytes };
}

/** The entries of "data", streams flattened in order. */
function entriesOf(doc: unknown, file: string): Record<string, unknown>[] {
  const data = (doc as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length === 0) {
    throw new Error(
      `invalid perf_analyzer input data ${file}: expected {"data": [ ... ]} with at least one entry`,
    );
  }
  const out: Record<string, unknown>[] = [];
  for (const item of data) {
    for (const step of Array.isArray(item) ? item : [item]) {
      if (typeof step !== 'object' || step === null || Array.isArray(step)) {
        throw new Error(`invalid perf_analyzer input data ${file}: entry ${out.length} is not an object`);
      }
      out.push(step as Record<string, unknown>);
    }
  }
  return out;
}

function concat(parts: Uint8Array[]): ArrayBuffer {
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out.buffer;
}

/**
 * Reads perf_analyzer input-data JSON text as requests: batched models stack `batch` consecutive
 * entries (wrapping round at the end, as perf_analyzer's round robin does); others send one entry each.
 */
export function parsePerfAnalyzerData(text: string, options: PerfAnalyzerReadOptions): PayloadSample[] {
  const { file, inputs } = options;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(
      `invalid perf_analyzer input data ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const known = new Set(inputs.map((s) => s.name));
  const rows = entriesOf(doc, file).map((entry, i) => {
    const where = `${file} entry ${i}`;
    for (const key of Object.keys(entry)) {
      if (!known.has(key) && key !== 'model') {
        throw new Error(
          `${where}: input "${key}" is not an input of the model (inputs: ${[...known].join(', ')})`,
        );
      }
    }
    return inputs.map((spec) => {
      if (!(spec.name in entry)) throw new Error(`${where}: missing input ${spec.name}`);
      return readRow(spec, entry[spec.name], where);
    });
  });
  const batch = options.batched ? Math.max(1, options.batch) : 1;
  const requests = Math.ceil(rows.length / batch);
  const samples: PayloadSample[] = [];
  for (let r = 0; r < requests; r++) {
    const members = Array.from({ length: batch }, (_, j) => rows[(r * batch + j) % rows.length]!);
    const tensors: PayloadTensor[] = inputs.map((spec, k) => {
      const first = members[0]![k]!;
      for (const m of members) {
        if (m[k]!.shape.join(',') !== first.shape.join(',')) {
          throw new Error(
            `${file}: request ${r} stacks ${spec.name} rows of different shapes; use --batch 1`,
          );
        }
      }
      const shape = options.batched ? [batch, ...first.shape] : first.shape;
      return {
        name: spec.name,
        datatype: spec.datatype,
        shape,
        data: concat(members.map((m) => m[k]!.bytes)),
      };
    });
    samples.push({ inputs: tensors });
  }
  return samples;
}

/** Splits a request tensor's bytes into its batch rows (BYTES rows are walked by their length prefixes). */
export function splitRows(
  tensor: { datatype: string; shape: number[]; data: Uint8Array },
  rows: number,
): Uint8Array[] {
  const { data } = tensor;
  if (tensor.datatype !== 'BYTES') {
    const rowBytes = data.byteLength / rows;
    return Array.from({ length: rows }, (_, j) => data.subarray(j * rowBytes, (j + 1) * rowBytes));
  }
  const perRow = tensor.shape.slice(1).reduce((a, b) => a * b, 1);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: Uint8Array[] = [];
  let offset = 0;
  for (let j = 0; j < rows; j++) {
    const start = offset;
    for (let e = 0; e < perRow; e++) offset += 4 + view.getUint32(offset, true);
    out.push(data.subarray(start, offset));
  }
  return out;
}

/** One perf_analyzer "data" entry as JSON text: each input as {"b64": …, "shape": [batch-1 dims]}. */
export function perfAnalyzerEntry(tensors: { name: string; shape: number[]; bytes: Uint8Array }[]): string {
  const fields = tensors.map(
    (t) => `${JSON.stringify(t.name)}:{"b64":"${base64Encode(t.bytes)}","shape":${JSON.stringify(t.shape)}}`,
  );
  return `{${fields.join(',')}}`;
}
