/**
 * InferResult → HTTP response: JSON outputs, or a JSON header followed by binary output data
 * (Inference-Header-Content-Length) for outputs asked as binary. Binary outputs are written as they are.
 */
import { decodeTensor } from '../../lib/tensor/codec.ts';
import { Errors } from '../errors.ts';
import type { InferResult } from '../infer/types.ts';
import type { HttpOutputPrefs } from './infer-decode.ts';

/** The response body parts and its JSON header length (undefined when all-JSON). */
export interface EncodedResponse {
  chunks: Uint8Array[];
  headerLength: number | undefined;
}

/** Encodes the response as Triton's HTTP frontend does. */
export function encodeHttpInfer(result: InferResult, prefs: HttpOutputPrefs): EncodedResponse {
  const binaries: Uint8Array[] = [];
  const outputs = result.outputs.map((o) => {
    const binary = prefs.binaryByName.get(o.name) ?? prefs.binaryDefault;
    if (binary) {
      binaries.push(o.data);
      return {
        name: o.name,
        datatype: o.datatype,
        shape: o.shape,
        parameters: { binary_data_size: o.data.length },
      };
    }
    if (o.datatype === 'FP16' || o.datatype === 'BF16') {
      throw Errors.badRequest(
        `sending ${o.datatype} data via JSON is not supported. Please use the binary data format for output`,
      );
    }
    // decodeTensor copies with slice(), which on a Buffer is a view: hand it a plain Uint8Array.
    const bytes = Buffer.isBuffer(o.data) ? new Uint8Array(o.data) : o.data;
    const decoded = decodeTensor(o.datatype, bytes, o.shape, { int64: 'number' });
    const data = ArrayBuffer.isView(decoded) ? Array.from(decoded as ArrayLike<number>) : decoded;
    return { name: o.name, datatype: o.datatype, shape: o.shape, data };
  });
  // Triton's member order: id (when set), model_name, model_version, outputs.
  const head: Record<string, unknown> = result.id ? { id: result.id } : {};
  head.model_name = result.modelName;
  head.model_version = result.modelVersion;
  head.outputs = outputs;
  const json = Buffer.from(JSON.stringify(head));
  if (binaries.length === 0) return { chunks: [json], headerLength: undefined };
  return { chunks: [json, ...binaries], headerLength: json.length };
}
