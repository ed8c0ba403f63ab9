/**
 * The last decoded JSON inference header of each model, reused when the next request's header has the same bytes
 * (perf_analyzer and most load generators send one header for every request: parsing it again each time was a
 * few µs of every round trip). Only headers whose inputs all come as binary data are kept: then the decoded
 * request depends on the header's bytes and on the body's length alone, and each request gets its own views of
 * its body. A body whose binary part does not add up takes the full decoder, which answers as it always did.
 */
import type { ModelConfigJson } from '../config/types.ts';
import type { InferRequest, RequestedOutput } from '../infer/types.ts';
import { decodeHttpInfer, type HttpOutputPrefs, type InferTarget } from './infer-decode.ts';

/** Headers longer than this are decoded every time (a header this long is rare; a copy of it is kept). */
export const CACHED_HEADER_MAX_BYTES = 4096;

interface CachedHeader {
  header: Buffer;
  name: string;
  version: string;
  maxInput_bytes: number;
  id: string;
  parameters: Record<string, unknown>;
  inputs: {
    name: string;
    datatype: InferRequest['inputs'][number]['datatype'];
    shape: number[];
    size: number;
  }[];
  binary_bytes: number;
  outputs: RequestedOutput[] | undefined;
  /** Read-only downstream (the encoder reads it), so shared by the requests that reuse the header. */
  prefs: HttpOutputPrefs;
}

/** By the model version's config: an entry goes when its model does. */
const cache = new WeakMap<ModelConfigJson, CachedHeader>();

/** decodeHttpInfer, reusing the model's last header when this one has the same bytes. */
export function decodeHttpInferCached(
  body: Buffer,
  headerLength: number,
  model: InferTarget,
  maxInput_bytes: number,
): { request: InferRequest; prefs: HttpOutputPrefs } {
  if (headerLength === 0 || headerLength > CACHED_HEADER_MAX_BYTES) {
    return decodeHttpInfer(body, headerLength, model, maxInput_bytes);
  }
  const header = body.subarray(0, headerLength);
  const hit = cache.get(model.config);
  if (
    hit !== undefined &&
    hit.binary_bytes === body.length - headerLength &&
    hit.name === model.name &&
    hit.version === model.version &&
    hit.maxInput_bytes === maxInput_bytes &&
    hit.header.equals(header)
  ) {
    return { request: fromCached(hit, body, headerLength), prefs: hit.prefs };
  }
  const decoded = decodeHttpInfer(body, headerLength, model, maxInput_bytes);
  const entry = toCached(decoded.request, decoded.prefs, header, model, maxInput_bytes);
  if (entry) cache.set(model.config, entry);
  return decoded;
}

/** A request of its own from a cached header: fresh records and shapes, data viewing this body. */
function fromCached(hit: CachedHeader, body: Buffer, headerLength: number): InferRequest {
  let offset = headerLength;
  const inputs = hit.inputs.map((t) => {
    const data = body.subarray(offset, offset + t.size);
    offset += t.size;
    return { name: t.name, datatype: t.datatype, shape: [...t.shape], data };
  });
  return {
    modelName: hit.name,
    modelVersion: hit.version,
    id: hit.id,
    inputs,
    outputs: hit.outputs?.map((o) => ({ ...o })),
    parameters: { ...hit.parameters },
  };
}

/** The cache entry of a decoded request, or undefined when an input's data came in the JSON. */
function toCached(
  request: InferRequest,
  prefs: HttpOutputPrefs,
  header: Buffer,
  model: InferTarget,
  maxInput_bytes: number,
): CachedHeader | undefined {
  let offset = header.length;
  const inputs: CachedHeader['inputs'] = [];
  for (const t of request.inputs) {
    // Binary inputs are views into the body, one after another, right after the header.
    const view = t.data instanceof Buffer && t.data.buffer === header.buffer;
    if (!view || t.data.byteOffset - header.byteOffset !== offset) return undefined;
    inputs.push({ name: t.name, datatype: t.datatype, shape: [...t.shape], size: t.data.length });
    offset += t.data.length;
  }
  return {
    header: Buffer.from(header),
    name: model.name,
    version: model.version,
    maxInput_bytes,
    id: request.id,
    parameters: { ...request.parameters },
    inputs,
    binary_bytes: offset - header.length,
    outputs: request.outputs?.map((o) => ({ ...o })),
    prefs,
  };
}
