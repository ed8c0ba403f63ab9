/**
 * InferResult → HTTP response: JSON outputs, or a JSON header followed by binary output data
 * (Inference-Header-Content-Length) for outputs asked as binary. Binary outputs are written as they are.
 */
import { decodeTensor } from '@k6-triton/lib/tensor/codec.ts';
import { Errors } from '../errors.ts';
import type { InferResult } from '../infer/types.ts';
import type { HttpOutputPrefs } from './infer-decode.ts';

/** The response body parts and its JSON header length (undefined when all-JSON). */
export interface EncodedResponse {
  chunks: Uint8Array[];
  headerLength: number | undefined;
}

/** What an all-binary answer's JSON header says: ids, and each output's name, datatype, shape and size. */
interface BinaryHeader {
  id: string;
  modelName: string;
  modelVersion: string;
  outputs: { name: string; datatype: string; shape: number[]; size: number }[];
  json: Buffer;
}

/** The last all-binary answer's JSON header per output preferences (one object per reused request header). */
const lastBinaryHeader = new WeakMap<HttpOutputPrefs, BinaryHeader>();

/** Whether an all-binary answer's JSON header would be `h`'s. */
function sameBinaryHeader(h: BinaryHeader, r: InferResult): boolean {
  if (h.id !== r.id || h.modelName !== r.modelName || h.modelVersion !== r.modelVersion) return false;
  if (h.outputs.length !== r.outputs.length) return false;
  for (let i = 0; i < h.outputs.length; i++) {
    const x = h.outputs[i]!;
    const y = r.outputs[i]!;
    if (x.name !== y.name || x.datatype !== y.datatype || x.size !== y.data.length) return false;
    if (x.shape.length !== y.shape.length) return false;
    for (let d = 0; d < x.shape.length; d++) if (x.shape[d] !== y.shape[d]) return false;
  }
  return true;
}

/**
 * Encodes the response as Triton's HTTP frontend does. An all-binary answer whose JSON header equals the last one
 * made for the same output preferences reuses its bytes (at concurrency 1 the same header goes out every time).
 */
export function encodeHttpInfer(result: InferResult, prefs: HttpOutputPrefs): EncodedResponse {
  const last = lastBinaryHeader.get(prefs);
  if (last && sameBinaryHeader(last, result)) {
    return { chunks: [last.json, ...result.outputs.map((o) => o.data)], headerLength: last.json.length };
  }
  const binaries: Uint8Array[] = [];
  // Each output as JSON text, so that a data array JSON.stringify cannot write right is written by hand.
  const outputs = result.outputs.map((o) => {
    const binary = prefs.binaryByName.get(o.name) ?? prefs.binaryDefault;
    if (binary) {
      binaries.push(o.data);
      return JSON.stringify({
        name: o.name,
        datatype: o.datatype,
        shape: o.shape,
        parameters: { binary_data_size: o.data.length },
      });
    }
    if (o.datatype === 'FP16' || o.datatype === 'BF16') {
      throw Errors.badRequest(
        `sending ${o.datatype} data via JSON is not supported. Please use the binary data format for output`,
      );
    }
    // decodeTensor copies with slice(), which on a Buffer is a view: hand it a plain Uint8Array.
    const bytes = Buffer.isBuffer(o.data) ? new Uint8Array(o.data) : o.data;
    const decoded = decodeTensor(o.datatype, bytes, o.shape, { int64: 'bigint' });
    const values = ArrayBuffer.isView(decoded) ? Array.from(decoded as ArrayLike<number | bigint>) : decoded;
    const head = { name: o.name, datatype: o.datatype, shape: o.shape };
    const raw = rawJsonData(values as unknown[]);
    if (raw === undefined) {
      const data = values.map((v) => (typeof v === 'bigint' ? Number(v) : v));
      return JSON.stringify({ ...head, data });
    }
    return `${JSON.stringify(head).slice(0, -1)},"data":${raw}}`;
  });
  // Triton's member order: id (when set), model_name, model_version, outputs.
  const head: Record<string, unknown> = result.id ? { id: result.id } : {};
  head.model_name = result.modelName;
  head.model_version = result.modelVersion;
  const json = Buffer.from(`${JSON.stringify(head).slice(0, -1)},"outputs":[${outputs.join(',')}]}`);
  if (binaries.length === 0) return { chunks: [json], headerLength: undefined };
  if (binaries.length === result.outputs.length) {
    lastBinaryHeader.set(prefs, {
      id: result.id,
      modelName: result.modelName,
      modelVersion: result.modelVersion,
      outputs: result.outputs.map((o) => ({
        name: o.name,
        datatype: o.datatype,
        shape: [...o.shape],
        size: o.data.length,
      })),
      json,
    });
  }
  return { chunks: [json, ...binaries], headerLength: json.length };
}

/**
 * A data array JSON.stringify would not write as Triton does, written here: NaN and ±Infinity as rapidjson
 * writes them (NaN, Infinity, -Infinity; JSON.stringify says null) and 64-bit integers past 2^53 exactly.
 * Undefined when JSON.stringify writes it right.
 */
function rawJsonData(values: unknown[]): string | undefined {
  const plain = values.every((v) =>
    typeof v === 'number'
      ? Number.isFinite(v)
      : typeof v === 'bigint'
        ? v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
        : true,
  );
  if (plain) return undefined;
  const text = values.map((v) =>
    typeof v === 'bigint'
      ? String(v)
      : typeof v === 'number' && !Number.isFinite(v)
        ? Number.isNaN(v)
          ? 'NaN'
          : v > 0
            ? 'Infinity'
            : '-Infinity'
        : JSON.stringify(v),
  );
  return `[${text.join(',')}]`;
}
